/**
 * Whether a turn costs O(1) in the length of its history: the same one-step turn on an instance whose conversation
 * already holds 10,000 messages and on one that holds 10, through the real orchestrator and real agent children,
 * on the `replay` model (no wire, so no model time to subtract), state on disk. The histories are written into the
 * state database before `goondan` starts, as a long-lived instance would have left them; each instance's child is
 * started and hydrated once before timing. Prints per-turn p50/p99 for both, the ratio (goal: within 1.2x) and the
 * RSS of each child.
 * Usage: bun bench/history-growth.ts [--turns N] [--long N]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "../src/protocol/conversation.ts";
import { loadBundleOrThrow } from "../src/config/load-bundle.ts";
import { Orchestrator } from "../src/orchestrator/orchestrator.ts";
import { silentLogger } from "../src/shared/logger.ts";
import { openStateStore } from "../src/store/open-state-store.ts";
import { bunProcessSpawner } from "../src/supervision/process-spawner.ts";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";

const TURNS = Number(flag("turns", "300"));
const LONG = Number(flag("long", "10000"));
const SHORT = 10;
const CASSETTE_LINE = {
  v: 1,
  request: { lastRole: "user" },
  reply: { content: [{ type: "text", text: "ok" }], finishReason: "stop", usage: { input: 1, output: 1 } },
};

const dir = mkdtempSync(join(tmpdir(), "goondan-history-"));
const stateRoot = mkdtempSync(join(tmpdir(), "goondan-history-state-"));
writeFileSync(join(dir, "bench.jsonl"), `${JSON.stringify(CASSETTE_LINE)}\n`);
writeFileSync(
  join(dir, "goondan.yaml"),
  [
    `apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: replay }\nspec: { provider: replay, model: bench, options: { cassette: ./bench.jsonl } }`,
    `apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: talker }\nspec: { modelConfig: { modelRef: Model/replay }, prompt: { system: "You talk." } }`,
    `apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: history }\nspec: { entryAgent: Agent/talker, agents: [Agent/talker], policy: { lifecycle: { idleSeconds: 3600 } } }`,
  ].join("\n---\n"),
);

/** A past exchange: a user line and the assistant's answer, alternating, `count` messages in all. */
function history(count: number, prefix: string): Message[] {
  const createdAt = new Date(0).toISOString();
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? {
          id: `${prefix}-${index}`,
          data: { role: "user", content: `question ${index}: how is the weather on day ${index}?` },
          metadata: {},
          createdAt,
          source: { type: "user" },
        }
      : {
          id: `${prefix}-${index}`,
          data: {
            role: "assistant",
            content: [{ type: "text", text: `answer ${index}: sunny, 21 degrees, light wind from the west.` }],
          },
          metadata: {},
          createdAt,
          source: { type: "assistant" },
        },
  );
}

const seed = openStateStore({ stateRoot, logger: silentLogger() });
for (const [instanceKey, count] of [
  ["long", LONG],
  ["short", SHORT],
] as const) {
  await seed.commit(
    { swarm: "history", agent: "talker", instanceKey },
    { changes: history(count, instanceKey).map((message) => ({ type: "append", message })) },
  );
}
await seed.close();

const orchestrator = new Orchestrator({
  bundle: await loadBundleOrThrow(dir),
  stateRoot,
  spawner: bunProcessSpawner({ output: "ignore", env: { ...process.env, GOONDAN_LOG_LEVEL: "warn" } }),
});
const rssMiB = (instanceKey: string): number => {
  const pid = orchestrator.processes().find((row) => row.instanceKey === instanceKey)?.pid;
  const match = pid ? /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8")) : null;
  return match ? Number(match[1]) / 1024 : Number.NaN;
};
try {
  await orchestrator.start();
  const samples: Record<"long" | "short", number[]> = { long: [], short: [] };
  for (const instanceKey of ["long", "short"] as const)
    for (let i = 0; i < 5; i += 1)
      await orchestrator.submit({ input: "warm up", agent: "talker", instanceKey }).outcome;
  for (let i = 0; i < TURNS; i += 1) {
    for (const instanceKey of ["long", "short"] as const) {
      const started = performance.now();
      const outcome = await orchestrator.submit({ input: `turn ${i}`, agent: "talker", instanceKey }).outcome;
      if (outcome.status !== "ok") throw new Error(`turn failed: ${JSON.stringify(outcome).slice(0, 300)}`);
      samples[instanceKey].push(performance.now() - started);
    }
  }
  console.log(
    `history-growth (bun ${Bun.version}): ${TURNS} one-step turns each on the replay model, alternating, state on disk`,
  );
  for (const instanceKey of ["short", "long"] as const) {
    const count = (instanceKey === "long" ? LONG : SHORT) + 10 + 2 * TURNS;
    console.log(
      `  ${`${instanceKey}: ${instanceKey === "long" ? LONG : SHORT} messages before, ${count} after`.padEnd(44)} p50 ${percentile(samples[instanceKey], 50).toFixed(3)} ms  p99 ${percentile(samples[instanceKey], 99).toFixed(3)} ms  child RSS ${rssMiB(instanceKey).toFixed(1)} MiB`,
    );
  }
  console.log(
    `  long / short per-turn p50: ${(percentile(samples.long, 50) / percentile(samples.short, 50)).toFixed(2)}x (goal <= 1.2x)`,
  );
} finally {
  await orchestrator.shutdown({ reason: "bench", gracePeriodMs: 2000 });
  rmSync(dir, { recursive: true, force: true });
  rmSync(stateRoot, { recursive: true, force: true });
}
