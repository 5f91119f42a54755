/**
 * What a long history costs: the same one-step turn on instances whose stored history holds 10,000 messages and on
 * one that holds 10, through the real orchestrator and real agent children, on the `replay` model (no wire, so no
 * model time to subtract), state on disk. The histories are written into the state database before `goondan`
 * starts, as a long-lived instance would have left them (bench/support/long-history.ts); each instance's child is
 * started and hydrated once before timing. Three instances:
 *   - short:    10 messages, all seen by the model;
 *   - full:     10,000 messages, all seen by the model (no extension trims the conversation): its child must hold
 *               them all, so its memory grows with the history, by design;
 *   - windowed: 10,000 messages behind message-window (40): 9,960 archived in the store, 40 in the child.
 * Prints per-turn p50/p99 and the child's RSS for each, the ratios (goals: per-turn p50 within 1.2x; windowed RSS
 * within 1.5x of short), and the bytes goondan.db grew by per event over the timed turns, by table.
 * Usage: bun bench/history-growth.ts [--turns N] [--long N] [--bytes N]   (--bytes: size of each answer, default 200)
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundleOrThrow } from "../src/config/load-bundle.ts";
import { Orchestrator } from "../src/orchestrator/orchestrator.ts";
import { stateDatabasePath } from "../src/store/open-state-store.ts";
import { bunProcessSpawner } from "../src/supervision/process-spawner.ts";
import { flag } from "./support/flag.ts";
import { childRssMiB, seedHistories, WINDOW, writeLongHistoryBundle } from "./support/long-history.ts";
import { percentile } from "./support/percentile.ts";

const TURNS = Number(flag("turns", "300"));
const LONG = Number(flag("long", "10000"));
const BYTES = Number(flag("bytes", "200"));
const SHORT = 10;
const CASES = [
  { instanceKey: "short", agent: "talker", count: SHORT },
  { instanceKey: "full", agent: "talker", count: LONG },
  { instanceKey: "windowed", agent: "windowed", count: LONG, window: WINDOW },
] as const;
type Key = (typeof CASES)[number]["instanceKey"];

/** Bytes of goondan.db by table (and index), after folding the log into it. */
function tableBytes(stateRoot: string): Map<string, number> {
  const db = new Database(stateDatabasePath(stateRoot));
  try {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const rows = db.query("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name").all() as {
      name: string;
      bytes: number;
    }[];
    return new Map(rows.map((row) => [row.name, row.bytes]));
  } finally {
    db.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), "goondan-history-"));
const stateRoot = mkdtempSync(join(tmpdir(), "goondan-history-state-"));
writeLongHistoryBundle(dir);
await seedHistories(
  stateRoot,
  CASES.map((entry) => ({ ...entry, bytes: BYTES })),
);

const orchestrator = new Orchestrator({
  bundle: await loadBundleOrThrow(dir),
  stateRoot,
  spawner: bunProcessSpawner({ output: "ignore", env: { ...process.env, GOONDAN_LOG_LEVEL: "warn" } }),
});
let events = 0;
try {
  await orchestrator.start();
  for (const { instanceKey, agent } of CASES)
    for (let i = 0; i < 5; i += 1) await orchestrator.submit({ input: "warm up", agent, instanceKey }).outcome;
  await orchestrator.shutdown({ reason: "measure the database", gracePeriodMs: 2000 });
} catch (error) {
  rmSync(dir, { recursive: true, force: true });
  rmSync(stateRoot, { recursive: true, force: true });
  throw error;
}
const before = tableBytes(stateRoot);

// A second orchestrator on the same state root: the timed turns' writes are what the database grows by.
const timed = new Orchestrator({
  bundle: await loadBundleOrThrow(dir),
  stateRoot,
  spawner: bunProcessSpawner({ output: "ignore", env: { ...process.env, GOONDAN_LOG_LEVEL: "warn" } }),
});
const rss: Record<Key, number> = { short: Number.NaN, full: Number.NaN, windowed: Number.NaN };
const samples: Record<Key, number[]> = { short: [], full: [], windowed: [] };
try {
  await timed.start();
  for (const { instanceKey, agent } of CASES)
    for (let i = 0; i < 3; i += 1) await timed.submit({ input: "warm up", agent, instanceKey }).outcome;
  events += 3 * CASES.length;
  for (let i = 0; i < TURNS; i += 1) {
    for (const { instanceKey, agent } of CASES) {
      const started = performance.now();
      const outcome = await timed.submit({ input: `turn ${i}`, agent, instanceKey }).outcome;
      if (outcome.status !== "ok") throw new Error(`turn failed: ${JSON.stringify(outcome).slice(0, 300)}`);
      samples[instanceKey].push(performance.now() - started);
      events += 1;
    }
  }
  for (const { instanceKey } of CASES) rss[instanceKey] = childRssMiB(timed, instanceKey);
} finally {
  await timed.shutdown({ reason: "bench", gracePeriodMs: 2000 });
}
const after = tableBytes(stateRoot);
rmSync(dir, { recursive: true, force: true });
rmSync(stateRoot, { recursive: true, force: true });

console.log(
  `history-growth (bun ${Bun.version}): ${TURNS} one-step turns each on the replay model, alternating, state on disk, answers of ${BYTES} characters in the seeded histories`,
);
for (const { instanceKey, count } of CASES) {
  const label = `${instanceKey}: ${count} messages before${instanceKey === "windowed" ? ` (${WINDOW} in the child)` : ""}`;
  console.log(
    `  ${label.padEnd(50)} p50 ${percentile(samples[instanceKey], 50).toFixed(3)} ms  p99 ${percentile(samples[instanceKey], 99).toFixed(3)} ms  child RSS ${rss[instanceKey].toFixed(1)} MiB`,
  );
}
const p50 = (key: Key) => percentile(samples[key], 50);
console.log(`  full / short per-turn p50: ${(p50("full") / p50("short")).toFixed(2)}x (goal <= 1.2x)`);
console.log(`  windowed / short per-turn p50: ${(p50("windowed") / p50("short")).toFixed(2)}x (goal <= 1.2x)`);
console.log(
  `  windowed / short child RSS: ${(rss.windowed / rss.short).toFixed(2)}x (goal <= 1.5x); full / short: ${(rss.full / rss.short).toFixed(2)}x (the model sees all ${LONG} messages: no bound by design)`,
);
const grown = [...after].map(([name, bytes]) => [name, bytes - (before.get(name) ?? 0)] as const);
const total = grown.reduce((sum, [, bytes]) => sum + bytes, 0);
console.log(
  `  goondan.db grew ${(total / events).toFixed(0)} bytes per event over ${events} events (pages, after a checkpoint), by table:`,
);
for (const [name, bytes] of grown.filter(([, bytes]) => bytes !== 0).sort((a, b) => b[1] - a[1]))
  console.log(`    ${name.padEnd(32)} ${(bytes / events).toFixed(0).padStart(8)} bytes per event`);
