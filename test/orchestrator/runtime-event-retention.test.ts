/**
 * The Swarm's runtime-event retention (`spec.policy.retention.runtimeEvents`): the store deletes the oldest rows a
 * bounded batch at a time, and the orchestrator's pass runs on a timer, off the path of any request.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { RuntimeEventRetention } from "../../src/orchestrator/runtime-event-retention.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { baseBundle, removeBundles, SWARM, writeBundle } from "../config/temp-bundle.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();
afterEach(removeBundles);

function open(): SqliteStore {
  const dir = mkdtempSync(join(tmpdir(), "goondan-retention-"));
  const store = new SqliteStore(join(dir, "goondan.db"));
  defer(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

const events = (count: number, at: (index: number) => number): RuntimeEvent[] =>
  Array.from({ length: count }, (_, index) => ({
    type: "turn.started",
    at: new Date(at(index)).toISOString(),
    agent: "a",
    instanceKey: "k",
    traceId: "t",
    spanId: `sp${index}`,
    data: { index },
  }));

const indexes = async (store: SqliteStore, swarm: string) =>
  (await store.runtimeEvents({ swarm })).map((row) => (row.event.data as { index: number }).index);

describe("runtime-event retention", () => {
  it("keeps the newest maxRows of the swarm, deleting a batch at a time, and leaves other swarms alone", async () => {
    const store = open();
    store.appendRuntimeEvents(
      "s",
      events(2500, () => 0),
    );
    store.appendRuntimeEvents(
      "other",
      events(30, () => 0),
    );
    expect(await store.pruneRuntimeEvents("s", { keepRows: 500, limit: 1000 })).toBe(1000);
    const retention = new RuntimeEventRetention({
      store,
      swarm: () => "s",
      policy: () => ({ maxRows: 500 }),
      clock: new ManualClock(),
      logger: silentLogger(),
      batchRows: 300,
    });
    expect(await retention.pass()).toBe(1000);
    const left = await indexes(store, "s");
    expect(left).toHaveLength(500);
    expect(left[0]).toBe(2000);
    expect(await indexes(store, "other")).toHaveLength(30);
  });

  it("counts the swarm's rows once and keeps the count right as events are written and instances deleted", async () => {
    const store = open();
    store.appendRuntimeEvents(
      "s",
      events(100, () => 0),
    );
    expect(await store.pruneRuntimeEvents("s", { keepRows: 50, limit: 1000 })).toBe(50);
    store.appendRuntimeEvents(
      "s",
      events(30, () => 0),
    );
    expect(await store.pruneRuntimeEvents("s", { keepRows: 50, limit: 1000 })).toBe(30);
    store.appendRuntimeEvents(
      "s",
      events(20, () => 0).map((event) => ({ ...event, instanceKey: "gone" })),
    );
    await store.deleteInstance({ swarm: "s", agent: "a", instanceKey: "gone" });
    expect(await store.pruneRuntimeEvents("s", { keepRows: 50, limit: 1000 })).toBe(0);
    expect(await store.pruneRuntimeEvents("s", { keepRows: 40, limit: 1000 })).toBe(10);
    expect(await indexes(store, "s")).toHaveLength(40);
  });

  it("deletes events older than maxAge and keeps the newer ones", async () => {
    const store = open();
    const clock = new ManualClock(10 * 86_400_000);
    // Ten events a day apart, the last one now.
    store.appendRuntimeEvents(
      "s",
      events(10, (index) => (index + 1) * 86_400_000),
    );
    const retention = new RuntimeEventRetention({
      store,
      swarm: () => "s",
      policy: () => ({ maxAgeMs: 3 * 86_400_000 }),
      clock,
      logger: silentLogger(),
    });
    expect(await retention.pass()).toBe(6);
    expect(await indexes(store, "s")).toEqual([6, 7, 8, 9]);
  });

  it("deletes nothing without a policy", async () => {
    const store = open();
    store.appendRuntimeEvents(
      "s",
      events(5, () => 0),
    );
    const retention = new RuntimeEventRetention({
      store,
      swarm: () => "s",
      policy: () => undefined,
      clock: new ManualClock(),
      logger: silentLogger(),
    });
    expect(await retention.pass()).toBe(0);
    expect(await indexes(store, "s")).toHaveLength(5);
  });

  it("runs its passes on a timer, reading the policy at each, and stops", async () => {
    const store = open();
    const clock = new ManualClock();
    let maxRows: number | undefined;
    const retention = new RuntimeEventRetention({
      store,
      swarm: () => "s",
      policy: () => (maxRows === undefined ? undefined : { maxRows }),
      clock,
      logger: silentLogger(),
      firstDelayMs: 1000,
      intervalMs: 60_000,
    });
    store.appendRuntimeEvents(
      "s",
      events(20, () => 0),
    );
    retention.start();
    expect(clock.pendingDelays()).toEqual([1000]);
    clock.advance(1000);
    await retention.pass();
    expect(await indexes(store, "s")).toHaveLength(20);
    maxRows = 5;
    await Bun.sleep(0);
    expect(clock.pendingDelays()).toEqual([60_000]);
    clock.advance(60_000);
    await retention.pass();
    expect(await indexes(store, "s")).toHaveLength(5);
    await retention.stop();
    expect(clock.pendingDelays()).toEqual([]);
  });

  it("is read from the Swarm's policy, maxAge as a duration", async () => {
    const dir = writeBundle(
      baseBundle({ swarm: `${SWARM}  policy: { retention: { runtimeEvents: { maxAge: 7d, maxRows: 100000 } } }\n` }),
    );
    const bundle = await loadBundleOrThrow(dir);
    const swarm = bundle.resources.find((resource) => resource.kind === "Swarm");
    expect(swarm?.kind === "Swarm" ? swarm.spec.policy.retention : undefined).toEqual({
      runtimeEvents: { maxAgeMs: 7 * 86_400_000, maxRows: 100_000 },
    });
  });
});
