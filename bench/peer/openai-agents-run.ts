/**
 * The peer side of bench/peer-compare.ts: the same workload on `@openai/agents` (an entry Agent with the worker
 * as a tool, the worker with one echo tool), on the same loopback server, chat completions API, tracing off.
 * Each lane carries its conversations from request to request (`result.history`), the entry's and the worker's,
 * as goondan's instances do.
 * Usage: bun bench/peer/openai-agents-run.ts --url URL --sequential N --lanes L --requests M
 * Prints one JSON line: {"sequentialMs": [...], "lanes": {"requests", "seconds"}, "sequentialCpuMs", "lanesCpuMs"} (the CPU
 * this process used over each phase).
 */
import {
  Agent,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
  tool,
  user,
  type AgentInputItem,
} from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { flag } from "../support/flag.ts";

setDefaultOpenAIClient(new OpenAI({ baseURL: flag("url", ""), apiKey: "loopback" }));
setOpenAIAPI("chat_completions");
setTracingDisabled(true);

const echo = tool({
  name: "echo",
  description: "Echo the text back.",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ text }),
});
const worker = new Agent({ name: "worker", instructions: "ROLE=worker", model: "loopback-model", tools: [echo] });

/**
 * One lane's entry agent. Its worker carries its own conversation across the lane's requests, as goondan's worker
 * instance (one per lane) does, so both sides send the model the same messages.
 */
function laneEntry(): Agent {
  let workerHistory: AgentInputItem[] = [];
  const delegate = tool({
    name: "worker",
    description: "Hand the request to the worker.",
    parameters: z.object({ input: z.string() }),
    execute: async ({ input }) => {
      const result = await run(worker, [...workerHistory, user(input)]);
      workerHistory = result.history;
      return String(result.finalOutput);
    },
  });
  return new Agent({ name: "entry", instructions: "ROLE=entry", model: "loopback-model", tools: [delegate] });
}

/** One lane: requests one after another, each carrying the lane's history. */
async function lane(options: { name: string; requests: number; times?: number[] }): Promise<void> {
  const entry = laneEntry();
  let history: AgentInputItem[] = [];
  for (let i = 0; i < options.requests; i += 1) {
    const started = performance.now();
    const result = await run(entry, [...history, user(`${options.name} request ${i}`)]);
    if (typeof result.finalOutput !== "string" || !result.finalOutput.startsWith("done"))
      throw new Error(`unexpected answer ${String(result.finalOutput)}`);
    history = result.history;
    options.times?.push(performance.now() - started);
  }
}

const sequentialMs: number[] = [];
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
await lane({ name: "lane-warm", requests: 20 });
let cpu = process.cpuUsage();
await lane({ name: "lane-seq", requests: Number(flag("sequential", "100")), times: sequentialMs });
const sequentialCpuMs = cpuMs(cpu);
const lanes = Number(flag("lanes", "10"));
const perLane = Math.ceil(Number(flag("requests", "400")) / lanes);
cpu = process.cpuUsage();
const started = performance.now();
await Promise.all(Array.from({ length: lanes }, (_, index) => lane({ name: `lane-${index}`, requests: perLane })));
const seconds = (performance.now() - started) / 1000;
console.log(
  JSON.stringify({
    sequentialMs,
    lanes: { requests: perLane * lanes, seconds },
    sequentialCpuMs,
    lanesCpuMs: cpuMs(cpu),
  }),
);
