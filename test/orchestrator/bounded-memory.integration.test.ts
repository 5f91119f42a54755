/**
 * Issue 25, finding 6: an agent process holds the conversation its model sees, not the instance's history. Real
 * agent children on the replay model: an instance behind message-window whose store holds 10,000 messages of
 * history (8 KB answers, archived out of its window) is handed only its window, reads its older messages from the
 * store through ctx.conversation.older() over IPC, and its child's resident set stays within 1.5x that of an instance
 * with 10 messages (measured about 1.04x; a child that held the history would be about 2x: 40 MB of text).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childRssMiB, seedHistories, SWARM, WINDOW, writeLongHistoryBundle } from "../../bench/support/long-history.ts";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import { Orchestrator } from "../../src/orchestrator/orchestrator.ts";
import { stateDatabasePath } from "../../src/store/open-state-store.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { bunProcessSpawner } from "../../src/supervision/process-spawner.ts";

const dir = mkdtempSync(join(tmpdir(), "goondan-bounded-"));
const stateRoot = mkdtempSync(join(tmpdir(), "goondan-bounded-state-"));
let orchestrator: Orchestrator;

beforeAll(async () => {
  writeLongHistoryBundle(dir);
  await seedHistories(stateRoot, [
    { agent: "windowed", instanceKey: "long", count: 10_000, bytes: 8000, window: WINDOW },
    { agent: "windowed", instanceKey: "short", count: 10, bytes: 8000, window: WINDOW },
  ]);
  orchestrator = new Orchestrator({
    bundle: await loadBundleOrThrow(dir),
    stateRoot,
    spawner: bunProcessSpawner({ output: "ignore", env: { ...process.env, GOONDAN_LOG_LEVEL: "warn" } }),
  });
  await orchestrator.start();
}, 60_000);

afterAll(async () => {
  await orchestrator?.shutdown({ reason: "test", gracePeriodMs: 2000 });
  rmSync(dir, { recursive: true, force: true });
  rmSync(stateRoot, { recursive: true, force: true });
});

const turn = async (instanceKey: string, input: string) => {
  const outcome = await orchestrator.submit({ input, agent: "windowed", instanceKey }).outcome;
  expect(outcome.status).toBe("ok");
  return outcome;
};

describe("an agent process's memory with a long history", () => {
  it("holds its window, not its 10,000 stored messages: RSS within 1.5x of an instance with 10", async () => {
    for (let index = 0; index < 5; index += 1) {
      await turn("long", `turn ${index}`);
      await turn("short", `turn ${index}`);
    }
    const long = childRssMiB(orchestrator, "long");
    const short = childRssMiB(orchestrator, "short");
    expect(Number.isFinite(long) && Number.isFinite(short)).toBe(true);
    expect(long / short).toBeLessThanOrEqual(1.5);
  }, 120_000);

  it("reads the messages before its window from the store when an extension asks", async () => {
    const outcome = await turn("long", "recall");
    const { oldest, page } = JSON.parse(outcome.response) as { oldest: string; page: string[] };
    const position = Number(/^long-(\d+)$/.exec(oldest)?.[1]);
    expect(position).toBeGreaterThan(9000);
    expect(page).toEqual([`long-${position - 2}`, `long-${position - 1}`]);
  }, 60_000);

  it("keeps what message-window trims in the store's history, and a starting child is handed only the window", async () => {
    const store = new SqliteStore(stateDatabasePath(stateRoot), { existing: true });
    try {
      const ref = { swarm: SWARM, agent: "windowed", instanceKey: "long" };
      const state = store.instanceState(ref);
      expect(state.messages.length).toBeLessThanOrEqual(WINDOW + 2);
      const newest = await store.olderMessages(ref, { limit: 500 });
      expect(newest.length).toBe(500);
      expect(newest.at(-1)?.data.role).toBe("assistant");
    } finally {
      await store.close();
    }
  }, 60_000);
});
