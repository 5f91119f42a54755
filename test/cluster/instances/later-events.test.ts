/**
 * Messages for later in a cluster (LaterEvents on the local NATS, and the owner's ack of one it stored): a message
 * stored is named until it is answered, each instance named once; a takeover's `reconcile` keeps only the messages
 * still waiting; a message for later is acked at once once named (not when it is due), one due now or an ordinary
 * event is not, and one that cannot be named, or that the owner no longer holds, stays unacked.
 */
import { describe, expect, it } from "bun:test";
import { ackStoredForLater, LaterEvents } from "../../../src/cluster/instances/later-events.ts";
import type { IntakeDelivery } from "../../../src/cluster/intake/instance-intake.ts";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { until } from "../../helpers/goondan-process.ts";
import { connectTest, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";

const defer = useCleanups();

const event = (id: string, instanceKey: string, notBefore?: number): AgentEvent => ({
  id,
  type: "agent.message",
  input: "later",
  agent: "ops",
  instanceKey,
  source: { kind: "agent", name: "ops" },
  traceId: "t",
  callChain: [],
  metadata: {},
  createdAt: new Date(0).toISOString(),
  ...(notBefore === undefined ? {} : { notBefore }),
});

function delivery(evt: AgentEvent, acks: string[]): IntakeDelivery {
  return {
    event: evt,
    attempt: 1,
    sequence: 1,
    ack: async () => void acks.push(evt.id),
    working: () => {},
    retry: () => {},
  };
}

async function open(label: string): Promise<LaterEvents> {
  const swarm = testSwarm(label);
  removeSwarmAfter(defer, swarm);
  const connection = await connectTest(defer);
  return LaterEvents.open({ connection, names: clusterNames(swarm), logger: silentLogger() });
}

describe.skipIf(!natsAvailable)("LaterEvents", () => {
  it("names each instance with a message for later until it is answered, and reconciles a takeover", async () => {
    const later = await open("later");
    expect(await later.instances()).toEqual([]);
    await later.keep(event("evt_1", "user:1", 10));
    await later.keep(event("evt_2", "user:1", 20));
    await later.keep(event("evt_3", "k.2", 30));
    const sorted = async () => (await later.instances()).map((row) => row.instanceKey).sort();
    expect(await sorted()).toEqual(["k.2", "user:1"]);
    later.done(event("evt_3", "k.2"));
    await until(async () => (await sorted()).length === 1, { timeoutMs: 5000 });
    // Taken over with evt_2 still waiting: evt_1 was answered before its owner could drop it.
    await later.reconcile("ops", "user:1", ["evt_2"]);
    expect(await sorted()).toEqual(["user:1"]);
    await later.reconcile("ops", "user:1", []);
    expect(await later.instances()).toEqual([]);
  });

  it("acks a message for later once named, and nothing else", async () => {
    const later = await open("later-ack");
    const acks: string[] = [];
    const future = Date.now() + 60_000;
    const release = () => true;
    await ackStoredForLater(delivery(event("evt_now", "k", Date.now() - 1), acks), { later, release });
    await ackStoredForLater(delivery(event("evt_plain", "k"), acks), { later, release });
    await ackStoredForLater(delivery(event("evt_nolist", "k", future), acks), { later: undefined, release });
    await ackStoredForLater(delivery(event("evt_lost", "k", future), acks), { later, release: () => false });
    const failing = { keep: async () => Promise.reject(new Error("NATS is away")) };
    await ackStoredForLater(delivery(event("evt_failed", "k", future), acks), { later: failing, release });
    expect(acks).toEqual([]);
    await ackStoredForLater(delivery(event("evt_later", "k", future), acks), { later, release });
    expect(acks).toEqual(["evt_later"]);
    expect((await later.instances()).map((row) => row.instanceKey)).toEqual(["k"]);
  });
});
