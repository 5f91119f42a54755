/**
 * A child that ends because the store refused its commit (a full disk) is no crash of its event: the event is first
 * again and never given up for it, however often it happens, and the child starts again only after a backoff (1 s,
 * doubling), never at once; once the store writes again, the event runs and is answered, without a restart of
 * anything else. Both ways a store fault ends a child: it exits with STORE_FAULT_EXIT_CODE (the store refused a step
 * commit), or the orchestrator stops it because the commit of its turn's end was refused.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { STORE_FAULT_EXIT_CODE } from "../../src/protocol/ipc-messages.ts";
import type { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { fillDisk } from "../helpers/full-disk.ts";
import { removeRoots, setup, tick } from "./routing/routing-harness.ts";

afterEach(removeRoots);

describe("store faults of a child", () => {
  it("backs off a child that exits on a store fault and never gives its event up for it", async () => {
    const s = setup({ policy: { restart: { maxConsecutiveCrashes: 2, initialBackoffMs: 50 } } });
    const submitted = s.orchestrator.submit({ input: "needs the store" });
    let settled = false;
    void submitted.outcome.then(() => (settled = true));
    const delays: number[] = [];
    for (let round = 1; round <= 5; round += 1) {
      const child = s.spawner.latest("a");
      child.ready();
      expect(child.events().at(-1)?.event.input).toBe("needs the store");
      child.exit({ code: STORE_FAULT_EXIT_CODE, signal: null });
      await tick();
      expect(s.orchestrator.processes()[0]?.status).toBe("crashLoopBackOff");
      // Not at once: find when the next child starts.
      const before = s.spawner.children.length;
      let waited = 0;
      while (s.spawner.children.length === before && waited < 60_000) {
        s.clock.advance(100);
        waited += 100;
      }
      delays.push(waited);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(settled).toBe(false); // five store faults with maxConsecutiveCrashes 2: still not poison
    const last = s.spawner.latest("a");
    last.ready();
    expect(last.events()[0]).toMatchObject({ attempt: 6 });
    expect(last.events()[0]).toEqual(expect.not.objectContaining({ crashedBefore: expect.anything() }));
    last.reply({ response: "done" });
    expect(await submitted.outcome).toMatchObject({ status: "ok", response: "done" });
    const record = await s.orchestrator.store.inboxRecord("test-swarm", submitted.eventId);
    expect(record?.crashes).toBe(0);
  });

  it("stops a child whose turn's commit the store refused, keeps its event unanswered and first, and runs it once the store writes", async () => {
    const s = setup({ policy: { restart: { maxConsecutiveCrashes: 1 } } });
    const store = s.orchestrator.store as SqliteStore;
    const first = s.orchestrator.submit({ input: "one" });
    const second = s.orchestrator.submit({ input: "two" });
    await first.accepted;
    await second.accepted;
    const child = s.spawner.latest("a");
    child.ready();
    const disk = fillDisk(store);
    child.reply({ response: "r".repeat(300_000) }); // its commit needs pages the disk does not have
    await tick();
    expect(child.kills).toEqual(["SIGKILL"]);
    expect(child.events().map((delivery) => delivery.event.input)).toEqual(["one"]); // "two" never ran on top of it
    expect(s.orchestrator.processes()[0]?.status).toBe("crashLoopBackOff");
    expect((await store.inboxRecord("test-swarm", first.eventId))?.outcome).toBeUndefined();
    disk.free();
    s.clock.advance(1000);
    const next = s.spawner.latest("a");
    expect(next).not.toBe(child);
    next.ready();
    expect(next.events().map((delivery) => delivery.event.input)).toEqual(["one"]);
    next.reply({ response: "one done" });
    expect(await first.outcome).toMatchObject({ status: "ok", response: "one done" });
    expect(next.lastEvent().input).toBe("two");
    next.reply({ response: "two done" });
    expect(await second.outcome).toMatchObject({ status: "ok", response: "two done" });
    expect((await store.inboxRecord("test-swarm", first.eventId))?.crashes).toBe(0);
  });
});
