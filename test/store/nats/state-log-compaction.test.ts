import { describe, expect, it } from "bun:test";
import { ReplicatedStore } from "../../../src/store/nats/replicated-store.ts";
import type { JetStreamHandle } from "../../../src/store/nats/jetstream-handle.ts";
import type { CompactionSettings } from "../../../src/store/nats/state-log-snapshot.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import type { InstanceCommit } from "../../../src/protocol/instance-state.ts";
import type { TurnOutcome } from "../../../src/protocol/turn-outcome.ts";
import type { InstanceSnapshot } from "../../../src/store/instance-snapshot.ts";
import type { InstanceRef } from "../../../src/store/store.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { stateLogFixture } from "../../helpers/state-log-fixture.ts";
import { natsAvailable } from "../../helpers/nats.ts";

const defer = useCleanups();

const eventOf = (ref: InstanceRef, index: number): AgentEvent => ({
  id: `evt_${index}`,
  type: "user.input",
  input: `job ${index}`,
  agent: ref.agent,
  instanceKey: ref.instanceKey,
  source: { kind: "user", name: "test" },
  traceId: `trace_${index}`,
  callChain: [],
  metadata: {},
  createdAt: new Date(0).toISOString(),
});
const outcomeOf = (ref: InstanceRef, index: number): TurnOutcome =>
  ({
    status: "ok",
    agent: ref.agent,
    instanceKey: ref.instanceKey,
    eventId: `evt_${index}`,
    turnId: `turn_${index}`,
    response: `done ${index}`,
    finishReason: "stop",
  }) as TurnOutcome;
const message = (id: string, content: string) =>
  ({
    id,
    data: { role: "user", content },
    metadata: {},
    createdAt: new Date(0).toISOString(),
    source: { type: "user" },
  }) as never;

/** One turn as a node stores it: the event accepted, then its commit (two messages, extension state) with its answer. */
async function turn(store: ReplicatedStore, ref: InstanceRef, index: number, padding = ""): Promise<void> {
  await store.accept(ref.swarm, eventOf(ref, index), 1000 + index);
  const commit: InstanceCommit = {
    changes: [
      { type: "append", message: message(`u_${index}`, `job ${index}${padding}`) },
      { type: "append", message: message(`a_${index}`, `done ${index}`) },
    ],
    extensionState: { counter: { turns: index + 1 } },
  };
  await store.commit(ref, commit, outcomeOf(ref, index));
}

/** A snapshot without the answer times (a replayed answer is stamped when it is replayed). */
const comparable = (snapshot: InstanceSnapshot) => ({
  ...snapshot,
  inbox: snapshot.inbox.map(({ answeredAt: _answeredAt, ...entry }) => entry),
});

async function setup(compaction: CompactionSettings) {
  const { connection, ref, leases, claim, node: fixtureNode, subjectState } = await stateLogFixture(defer, "compact");
  const node = (handle: JetStreamHandle = connection) => fixtureNode({ handle, compaction });
  /** The connection, with every purge failing (as if the node died between its snapshot and its purge). */
  const withoutPurge: JetStreamHandle = {
    js: connection.js,
    jsm: new Proxy(connection.jsm, {
      get: (target, property) =>
        property === "streams"
          ? new Proxy(target.streams, {
              get: (streams, name) =>
                name === "purge"
                  ? () => Promise.reject(new Error("the node died here"))
                  : Reflect.get(streams, name).bind(streams),
            })
          : Reflect.get(target, property),
    }),
  };
  return { ref, leases, claim, node, subjectState, withoutPurge };
}

describe.skipIf(!natsAvailable)("state log compaction on the local NATS", () => {
  it("compacts an instance with many turns, and a new owner rebuilds the same state from the snapshot and the records after it", async () => {
    const { ref, leases, claim, node, subjectState } = await setup({ records: 40, bytes: 64 * 1024 * 1024 });
    const a = await node();
    const leaseA = await claim("a");
    await a.log.take(ref, leaseA, a.local);
    for (let index = 0; index < 150; index++) await turn(a.store, ref, index);
    // Writes made together while compactions run: none may be lost to a purge.
    await Promise.all(Array.from({ length: 30 }, (_, i) => turn(a.store, ref, 150 + i)));
    await a.store.addPendingResult(ref, {
      correlationId: "corr_1",
      from: "worker",
      status: "ok",
      response: "late",
    } as never);
    const before = a.local.exportInstance(ref);
    expect(before.messages).toHaveLength(360);
    // 360 records were written; the log keeps the last snapshot and fewer than 40 records after it (and the fence).
    expect((await subjectState()).messages).toBeLessThan(60);

    await leases.release(leaseA);
    const b = await node();
    const taken = await b.log.take(ref, await claim("b"), b.local);
    expect(taken).toMatchObject({ taken: true, resumed: false, fromSnapshot: true });
    expect(taken.taken && taken.replayed).toBeLessThan(45);
    expect(comparable(b.local.exportInstance(ref))).toEqual(comparable(before));
    expect(b.local.instanceState(ref).extensionState).toEqual({ counter: { turns: 180 } });
  });

  it("answers an event accepted long before the compaction from the store after a takeover, and accepting it again keeps that answer", async () => {
    const { ref, leases, claim, node } = await setup({ records: 20, bytes: 64 * 1024 * 1024 });
    const a = await node();
    const leaseA = await claim("a");
    await a.log.take(ref, leaseA, a.local);
    for (let index = 0; index < 60; index++) await turn(a.store, ref, index);
    await leases.release(leaseA);

    const b = await node();
    expect(await b.log.take(ref, await claim("b"), b.local)).toMatchObject({ taken: true, fromSnapshot: true });
    // The event is re-delivered (JetStream sends it again): the orchestrator accepts it (kept once) and finds its answer.
    await b.store.accept(ref.swarm, eventOf(ref, 0), 99_999);
    const record = await b.store.inboxRecord(ref.swarm, "evt_0");
    expect(record?.outcome).toMatchObject({ status: "ok", eventId: "evt_0", response: "done 0" });
    expect(record?.acceptedAt).toBe(1000);
    expect((await b.store.unanswered(ref.swarm)).map((entry) => entry.event.id)).toEqual([]);
  });

  it("writes a state larger than one message as several parts and replays it whole", async () => {
    const { ref, leases, claim, node } = await setup({ records: 1_000_000, bytes: 64 * 1024 * 1024 });
    const a = await node();
    const leaseA = await claim("a");
    await a.log.take(ref, leaseA, a.local);
    // 1.2 MB of UTF-8 (three bytes a character): parts must stay under the 1 MiB payload limit, grouped or not.
    const padding = "가나다라".repeat(1000);
    for (let index = 0; index < 100; index++) await turn(a.store, ref, index, padding);
    const purged = await a.log.compact(ref);
    expect(purged).toBeGreaterThan(1);
    await turn(a.store, ref, 100);
    await leases.release(leaseA);

    const b = await node();
    expect(await b.log.take(ref, await claim("b"), b.local)).toEqual({
      taken: true,
      replayed: 2,
      resumed: false,
      fromSnapshot: true,
    });
    expect(comparable(b.local.exportInstance(ref))).toEqual(comparable(a.local.exportInstance(ref)));
  });

  it("a crash between the snapshot and its purge is harmless: the next owner replays from the snapshot and skips the records before it", async () => {
    const { ref, leases, claim, node, subjectState, withoutPurge } = await setup({
      records: 1_000_000,
      bytes: 64 * 1024 * 1024,
    });
    const a = await node(withoutPurge);
    const leaseA = await claim("a");
    await a.log.take(ref, leaseA, a.local);
    for (let index = 0; index < 30; index++) await turn(a.store, ref, index);
    const failed = await a.log.compact(ref).then(
      () => "purged",
      (error: { code?: string }) => error.code,
    );
    expect(failed).toBe("E_CLUSTER_UNAVAILABLE");
    await turn(a.store, ref, 30);
    // Nothing was purged: the fence, 62 records, the snapshot's part, 2 records.
    expect((await subjectState()).messages).toBe(1 + 60 + 1 + 2);
    await leases.release(leaseA);

    const b = await node();
    expect(await b.log.take(ref, await claim("b"), b.local)).toEqual({
      taken: true,
      replayed: 2,
      resumed: false,
      fromSnapshot: true,
    });
    expect(comparable(b.local.exportInstance(ref))).toEqual(comparable(a.local.exportInstance(ref)));
    // The next compaction purges what the failed one left.
    await b.log.compact(ref);
    expect((await subjectState()).messages).toBe(1);
  });

  it("refuses a stale owner's snapshot and purges nothing", async () => {
    const { ref, leases, claim, node, subjectState } = await setup({ records: 1_000_000, bytes: 64 * 1024 * 1024 });
    const a = await node();
    const leaseA = await claim("a");
    await a.log.take(ref, leaseA, a.local);
    for (let index = 0; index < 20; index++) await turn(a.store, ref, index);
    await leases.release(leaseA);
    const b = await node();
    await b.log.take(ref, await claim("b"), b.local);
    const held = await subjectState();

    const refused = await a.log.compact(ref).then(
      () => "compacted",
      (error: { code?: string }) => error.code,
    );
    expect(refused).toBe("E_CLUSTER_FENCED");
    expect(a.log.owns(ref)).toBe(false);
    expect(await subjectState()).toEqual(held);
    expect(await a.log.compact(ref)).toBe(0);
  });

  it("a purge by an owner fenced off after its snapshot removes only what that snapshot covers", async () => {
    const { ref, leases, claim, node } = await setup({ records: 1_000_000, bytes: 64 * 1024 * 1024 });
    const a = await node();
    const leaseA = await claim("a");
    await a.log.take(ref, leaseA, a.local);
    for (let index = 0; index < 20; index++) await turn(a.store, ref, index);
    // A snapshots; before its purge lands, B takes over and writes.
    const compacting = a.log.compact(ref);
    await leases.release(leaseA);
    const b = await node();
    const leaseB = await claim("b");
    await b.log.take(ref, leaseB, b.local);
    for (let index = 20; index < 25; index++) await turn(b.store, ref, index);
    await compacting.catch(() => undefined);
    const expected = b.local.exportInstance(ref);

    await leases.release(leaseB);
    const c = await node();
    expect((await c.log.take(ref, await claim("c"), c.local)).taken).toBe(true);
    expect(comparable(c.local.exportInstance(ref))).toEqual(comparable(expected));
  });
});
