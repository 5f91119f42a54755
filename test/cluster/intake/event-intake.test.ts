import { describe, expect, it } from "bun:test";
import { EventIntake } from "../../../src/cluster/intake/event-intake.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import { SystemError } from "../../../src/shared/errors.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, NATS_URL, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";
import { startTcpProxy } from "../../helpers/tcp-proxy.ts";

const defer = useCleanups();

function event(id: string, instanceKey = "user-1", input = id): AgentEvent {
  return {
    id,
    type: "user.input",
    input,
    agent: "coder",
    instanceKey,
    source: { kind: "api", name: "http" },
    traceId: "0".repeat(32),
    callChain: [],
    metadata: {},
    createdAt: new Date(0).toISOString(),
  };
}

async function openIntake(node = "a") {
  const swarm = testSwarm("intake");
  removeSwarmAfter(defer, swarm);
  const connection = await connectTest(defer, { node });
  return { swarm, connection, intake: await EventIntake.open({ connection, swarm }) };
}

describe.skipIf(!natsAvailable)("EventIntake on the local NATS", () => {
  it("stores an event once even when its publish is retried with the same id", async () => {
    const { connection, intake } = await openIntake();
    const first = await intake.accept(event("evt_1"));
    const retried = await intake.accept(event("evt_1"));
    expect(first).toMatchObject({ eventId: "evt_1", duplicate: false });
    expect(retried).toMatchObject({ eventId: "evt_1", duplicate: true, sequence: first.sequence });
    expect((await connection.jsm.streams.info(intake.names.intakeStream)).state.messages).toBe(1);
  });

  it("delivers one instance's events in order, one at a time, and only its own", async () => {
    const { intake } = await openIntake();
    for (let index = 1; index <= 3; index++) await intake.accept(event(`evt_${index}`));
    await intake.accept(event("evt_other", "user-2"));
    const reader = await intake.instance("coder", "user-1", { ackWaitMs: 5000 });
    const first = await reader.next({ waitMs: 1000 });
    expect(first).toMatchObject({ event: { id: "evt_1" }, attempt: 1 });
    // The next event waits until this one's turn acks it.
    expect(await reader.next({ waitMs: 1000 })).toBeUndefined();
    await first!.ack();
    const ids: string[] = [];
    for (let index = 0; index < 2; index++) {
      const delivery = await reader.next({ waitMs: 1000 });
      ids.push(delivery!.event.id);
      await delivery!.ack();
    }
    expect(ids).toEqual(["evt_2", "evt_3"]);
    expect(await reader.next({ waitMs: 1000 })).toBeUndefined();
    const other = await intake.instance("coder", "user-2");
    expect((await other.next({ waitMs: 1000 }))?.event.id).toBe("evt_other");
  });

  it("delivers an event again, with a higher attempt, to the next reader when the node that had it dies", async () => {
    const { swarm, intake } = await openIntake();
    await intake.accept(event("evt_1"));
    const crashing = await connectTest(defer, { node: "crashing" });
    const crashingReader = await (await EventIntake.open({ connection: crashing, swarm })).instance("coder", "user-1", {
      ackWaitMs: 1000,
    });
    expect((await crashingReader.next({ waitMs: 1000 }))?.attempt).toBe(1);
    await crashing.nc.close(); // dies mid-turn: no ack, no nak
    const survivor = await intake.instance("coder", "user-1", { ackWaitMs: 1000 });
    const again = await survivor.next({ waitMs: 10000 });
    expect(again).toMatchObject({ event: { id: "evt_1" }, attempt: 2 });
    await again!.ack();
  }, 10_000);

  it("hands a dead reader's unacked event to a new owner at once after resetStale, not after the ack wait, and stores it once", async () => {
    const { swarm, intake } = await openIntake();
    await intake.accept(event("evt_1"));
    const crashing = await connectTest(defer, { node: "crashing" });
    const crashingReader = await (await EventIntake.open({ connection: crashing, swarm })).instance("coder", "user-1", {
      ackWaitMs: 30_000,
    });
    expect((await crashingReader.next({ waitMs: 1000 }))?.attempt).toBe(1);
    await crashing.nc.close(); // dies mid-turn: no ack, and an ack wait far away
    expect(await intake.resetStale("coder", "user-1")).toBe(true);
    const started = Date.now();
    const survivor = await intake.instance("coder", "user-1", { ackWaitMs: 30_000 });
    const again = await survivor.next({ waitMs: 5000 });
    expect(again).toMatchObject({ event: { id: "evt_1" } });
    expect(Date.now() - started).toBeLessThan(5000);
    await again!.ack();
    expect(await survivor.next({ waitMs: 1000 })).toBeUndefined();
    expect(await intake.resetStale("coder", "user-1")).toBe(false);
  }, 15_000);

  it("keeps an event whose long turn says it is working, and hands it back at once on retry", async () => {
    const { intake } = await openIntake();
    await intake.accept(event("evt_1"));
    const reader = await intake.instance("coder", "user-1", { ackWaitMs: 2000 });
    const delivery = await reader.next({ waitMs: 1000 });
    // A turn three times as long as the ack wait, saying it is working every 400 ms: never delivered again.
    const working = setInterval(() => delivery!.working(), 400);
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const meanwhile = await reader.next({ waitMs: 1000 });
    clearInterval(working);
    expect(meanwhile).toBeUndefined();
    delivery!.retry();
    const again = await reader.next({ waitMs: 1000 });
    expect(again).toMatchObject({ event: { id: "evt_1" }, attempt: 2 });
    await again!.ack();
  }, 15_000);

  it("refuses with E_CLUSTER_UNAVAILABLE, instead of saying accepted, when the stream cannot acknowledge", async () => {
    const target = new URL(NATS_URL);
    const proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 4222) });
    defer(() => proxy.close());
    const swarm = testSwarm("intake-cut");
    removeSwarmAfter(defer, swarm);
    const connection = await connectTest(defer, { url: `nats://${proxy.address}`, reconnectWaitMs: 50 });
    const intake = await EventIntake.open({ connection, swarm, publishTimeoutMs: 500 });
    proxy.freeze();
    let error: unknown;
    try {
      await intake.accept(event("evt_1"));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).code).toBe("E_CLUSTER_UNAVAILABLE");
    await proxy.start();
  }, 10_000);
});
