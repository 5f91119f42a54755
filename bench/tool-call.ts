/**
 * Overhead of executeToolCall (catalog gate + 3 pass-through toolCall middlewares + ajv validation +
 * result wrapping and JSON conversion) against calling the same handler bare, measured in the same run
 * after a warm-up, interleaved in batches. Prints p50/p99 of both and the overhead; target p50 < 20 µs.
 * Run: npx bun bench/tool-call.ts [iterations]
 */
import { silentLogger } from "../src/shared/logger.ts";
import {
  executeToolCall,
  type ToolCallMiddleware,
  type ToolInvocationContext,
} from "../src/tools/execute-tool-call.ts";
import { buildCatalog } from "../src/tools/tool-catalog.ts";
import { ToolRegistry } from "../src/tools/tool-registry.ts";
import type { AgentToolRuntime, ToolContext, ToolHandler } from "../src/tools/types.ts";
import { percentile } from "./support/percentile.ts";

const ITERATIONS = Number(process.argv[2] ?? 100_000);
const WARMUP = Math.min(20_000, ITERATIONS);
const BATCH = 1000;
const TARGET_P50_OVERHEAD_US = 20;

const handler: ToolHandler = async (_ctx, input) => ({
  echoed: input.text,
  length: String(input.text).length,
  tags: input.tags ?? [],
});

const registry = new ToolRegistry();
// A catalog of realistic size: the tool under test among 30 others.
for (let index = 0; index < 30; index++) registry.register({ name: `filler${index}__noop` }, () => null);
registry.register(
  {
    name: "bench__echo",
    description: "echo",
    parameters: {
      type: "object",
      properties: {
        text: { type: "string", maxLength: 10_000 },
        tags: { type: "array", items: { type: "string" } },
        loud: { type: "boolean" },
      },
      required: ["text"],
      additionalProperties: false,
    },
  },
  handler,
);
const catalog = buildCatalog({ registry, agentTools: [] });
const passThrough: ToolCallMiddleware = (_ctx, next) => next();
const middlewares = [passThrough, passThrough, passThrough];

const runtime = {} as AgentToolRuntime;
const context: ToolInvocationContext = {
  agentName: "bench",
  instanceKey: "default",
  turnId: "turn_1",
  message: {
    id: "m1",
    data: { role: "assistant", content: [] },
    metadata: {},
    createdAt: new Date(0).toISOString(),
    source: { type: "assistant" },
  },
  workdir: "/tmp",
  logger: silentLogger(),
  runtime,
};
const bareContext: ToolContext = { ...context, toolCallId: "call_1", signal: new AbortController().signal, config: {} };
const args = () => ({ text: "hello world", tags: ["a", "b"] });

async function timeBare(): Promise<number> {
  const input = args();
  const started = Bun.nanoseconds();
  await handler(bareContext, input);
  return Bun.nanoseconds() - started;
}

async function timeFull(): Promise<number> {
  const call = { id: "call_1", name: "bench__echo", args: args() };
  const started = Bun.nanoseconds();
  const result = await executeToolCall({ call, catalog, registry, middlewares, context });
  const elapsed = Bun.nanoseconds() - started;
  if (result.status !== "ok") throw new Error(`bench call failed: ${JSON.stringify(result)}`);
  return elapsed;
}

for (let index = 0; index < WARMUP; index++) {
  await timeBare();
  await timeFull();
}

const bare = new Float64Array(ITERATIONS);
const full = new Float64Array(ITERATIONS);
for (let done = 0; done < ITERATIONS; done += BATCH) {
  const end = Math.min(ITERATIONS, done + BATCH);
  for (let index = done; index < end; index++) bare[index] = await timeBare();
  for (let index = done; index < end; index++) full[index] = await timeFull();
}
bare.sort();
full.sort();

const us = (ns: number) => (ns / 1000).toFixed(2);
const bareP50 = percentile(bare, 50);
const fullP50 = percentile(full, 50);
const overheadP50 = fullP50 - bareP50;
console.log(
  `tool-call bench: ${ITERATIONS} calls each after ${WARMUP} warm-up calls (catalog of ${catalog.length}, 3 pass-through middlewares)`,
);
console.log(`  bare handler      p50 ${us(bareP50)} µs   p99 ${us(percentile(bare, 99))} µs`);
console.log(`  executeToolCall   p50 ${us(fullP50)} µs   p99 ${us(percentile(full, 99))} µs`);
console.log(
  `  overhead          p50 ${us(overheadP50)} µs   p99 ${us(percentile(full, 99) - percentile(bare, 99))} µs   ratio p50 ${(fullP50 / bareP50).toFixed(1)}x`,
);
console.log(
  `  target p50 overhead < ${TARGET_P50_OVERHEAD_US} µs: ${overheadP50 / 1000 < TARGET_P50_OVERHEAD_US ? "met" : "NOT MET"}`,
);
