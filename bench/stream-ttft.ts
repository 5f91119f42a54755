/**
 * Time to first token over the HTTP stream, with a real `goondan run` (its own process, a real agent child) on
 * the loopback LLM (in this process) with a streaming Model:
 *
 *   bun bench/stream-ttft.ts [--iterations N]
 *
 * Each iteration POSTs `/v1/events` with `"stream": true` and waits for the first `event: delta`. The loopback
 * server notes (on this process's clock) when it wrote its first text chunk; the figure is how long after that
 * the HTTP client had it as a delta: the AI SDK's parse in the agent child, IPC to the orchestrator, the relay and
 * the SSE write. The floor, measured in the same run: a client reading the loopback's stream directly, from the
 * same text chunk being written to the client having it. Goal: goondan adds under 5 ms at p50.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGoondanRun } from "../test/helpers/goondan-process.ts";
import { startLoopbackLlm, type LoopbackRequest } from "../test/helpers/loopback-llm.ts";
import { flag } from "./support/flag.ts";

const ITERATIONS = Number(flag("iterations", "200"));
const WARM_UP = 10;
const REPLY = { text: "Streaming tokens arrive one small piece after another.", chunkDelayMs: 5, textPieces: 6 };

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
};

/** Reads an SSE or chat-completions stream until `found` says a chunk holds what was waited for; returns when (performance.now). */
async function firstMatch(response: Response, found: (text: string) => boolean): Promise<number> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended without a match: ${text.slice(0, 300)}`);
    text += decoder.decode(value, { stream: true });
    if (found(text)) {
      const at = performance.now();
      // Drain the rest so the turn (and the connection) end before the next iteration.
      while (!(await reader.read()).done);
      return at;
    }
  }
}

async function main(): Promise<void> {
  console.log(
    `stream time-to-first-token (bun ${Bun.version}, ${navigator.hardwareConcurrency} cpus, ${ITERATIONS} iterations)\n`,
  );
  const llm = await startLoopbackLlm({ fallback: REPLY });
  const dir = mkdtempSync(join(tmpdir(), "goondan-ttft-"));
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-ttft-state-"));
  writeFileSync(
    join(dir, "goondan.yaml"),
    [
      `apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: loopback }\nspec: { provider: openai-compatible, model: m, endpoint: "${llm.url}", apiKey: { value: bench }, options: { stream: true } }`,
      `apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: talker }\nspec: { modelConfig: { modelRef: Model/loopback }, prompt: { system: "You talk." } }`,
      `apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: ttft }\nspec: { entryAgent: Agent/talker, agents: [Agent/talker], policy: { shutdown: { gracePeriodSeconds: 2 } } }`,
    ].join("\n---\n"),
  );
  const run = await startGoondanRun({
    args: [dir, "--port", "0", "--state-root", stateRoot],
    env: { GOONDAN_LOG_LEVEL: "info" },
  });
  try {
    const goondan: number[] = [];
    const floor: number[] = [];
    const lastRequest = (): LoopbackRequest => llm.requests.at(-1) as LoopbackRequest;
    for (let i = 0; i < WARM_UP + ITERATIONS; i++) {
      // Through goondan: POST /v1/events, stream: true, until the first delta. A fresh instance key per iteration
      // would spawn a child each time; one instance keeps its (short) conversation growing instead.
      const response = await fetch(`${run.base}/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: `question ${i}`, instanceKey: `k${i % 4}`, stream: true }),
      });
      const deltaAt = await firstMatch(response, (text) => text.includes("event: delta"));
      const wrote = lastRequest().firstTextPerf;
      if (wrote === undefined) throw new Error("the loopback never wrote text");
      // The floor: the loopback's stream read directly.
      const direct = await fetch(`${llm.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: `direct ${i}` }] }),
      });
      const directAt = await firstMatch(direct, (text) => /"content":"[^"]/.test(text));
      const directWrote = lastRequest().firstTextPerf as number;
      if (i < WARM_UP) continue;
      goondan.push(deltaAt - wrote);
      floor.push(directAt - directWrote);
    }
    const row = (label: string, values: number[]) =>
      console.log(
        `${label.padEnd(62)} p50 ${percentile(values, 50).toFixed(2).padStart(6)} ms   p99 ${percentile(values, 99).toFixed(2).padStart(6)} ms`,
      );
    row("loopback writes its first text → HTTP client has the delta", goondan);
    row("floor: loopback writes its first text → a direct client has it", floor);
    const added = percentile(goondan, 50) - percentile(floor, 50);
    console.log(
      `\ngoondan adds ${added.toFixed(2)} ms at p50 (${(percentile(goondan, 99) - percentile(floor, 99)).toFixed(2)} ms at p99) over the floor; goal < 5 ms at p50: ${added < 5 ? "met" : "NOT met"}`,
    );
  } finally {
    run.proc.kill("SIGTERM");
    await run.proc.exited;
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  }
}

await main();
