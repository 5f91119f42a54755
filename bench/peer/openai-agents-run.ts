/**
 * The `@openai/agents` side of bench/peer-compare.ts, delegation as its docs show it (agents as tools): an entry
 * Agent with `worker.asTool(...)`, the worker with one echo tool, on the loopback server, chat completions API,
 * tracing off. A conversation carries the entry's history from request to request (`result.history`); the worker,
 * run as a tool, starts afresh on each call (goondan's worker instance keeps its conversation: a little more work).
 * Usage: bun bench/peer/openai-agents-run.ts --url URL --sequential N --lanes L --requests M --conv short|long
 * Prints one JSON line (bench/peer/peer-harness.ts).
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
import { runPeer, type Conversation } from "./peer-harness.ts";

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
const entry = new Agent({
  name: "entry",
  instructions: "ROLE=entry",
  model: "loopback-model",
  tools: [worker.asTool({ toolName: "worker", toolDescription: "Hand the request to the worker." })],
});

/** One conversation: the entry's history, carried from request to request. */
function conversation(): Conversation {
  let history: AgentInputItem[] = [];
  return async (text) => {
    const result = await run(entry, [...history, user(text)]);
    history = result.history;
    return String(result.finalOutput);
  };
}

await runPeer(conversation);
