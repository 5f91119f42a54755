/**
 * ClusterSignals on the local NATS, two nodes in one process with a desk each that decides a call once: a signal
 * nobody waits for reaches nobody and keeps nothing; one sent to n2 for a call n1 runs is kept and applied by n1, once;
 * a signal for a call whose owner is dead is kept and applied by the node that takes the instance over; of two signals
 * for one wait only the first is kept; a wait decided is found no more; at a call's deadline, what was kept for it
 * before that deadline is applied instead (and nothing when nothing was, or it came after).
 */
import { describe, expect, it } from "bun:test";
import { ClusterSignals } from "../../../src/cluster/instances/cluster-signals.ts";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import type { Delivered } from "../../../src/cluster/instances/held-mail.ts";
import type { RequestOutcome } from "../../../src/cluster/nats/messenger.ts";
import type { SignalDesk } from "../../../src/orchestrator/approvals/signal-routing.ts";
import type { Approval } from "../../../src/protocol/approval.ts";
import { signalApprover } from "../../../src/protocol/suspension.ts";
import type { JsonValue } from "../../../src/shared/json.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { until } from "../../helpers/goondan-process.ts";
import { connectTest, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";

const defer = useCleanups();

const waitFor = (id: string, instanceKey: string, signal: string): Approval => ({
  id,
  agent: "ops",
  instanceKey,
  eventId: `evt_${id}`,
  turnId: "turn_1",
  traceId: "t",
  toolCallId: `call_${id}`,
  toolName: "timer__waitForSignal",
  arguments: { name: signal },
  requestedAt: 1,
  expiresAt: 1_000_000_000_000_000,
  approvers: [signalApprover(signal)],
});

interface TestNode {
  name: string;
  signals: ClusterSignals;
  /** What its desk woke: approval id and payload. */
  woken: Array<{ id: string; payload: JsonValue }>;
  /** The instance keys it runs. */
  runs: Set<string>;
}

async function cluster(label: string) {
  const swarm = testSwarm(label);
  removeSwarmAfter(defer, swarm);
  const names = clusterNames(swarm);
  const nodes = new Map<string, TestNode>();
  /** Instance key → the node whose lease holds it (alive or not). */
  const leases = new Map<string, string>();
  const dead = new Set<string>();
  const decided = new Set<string>();
  const join = async (name: string): Promise<TestNode> => {
    const connection = await connectTest(defer, { node: name });
    const node: TestNode = { name, woken: [], runs: new Set(), signals: undefined as never };
    node.signals = await ClusterSignals.open({
      connection,
      names,
      node: name,
      logger: silentLogger(),
      owns: (_agent, instanceKey) => node.runs.has(instanceKey),
      holder: async (_agent, instanceKey) => leases.get(instanceKey),
      ask: async (target, agent, instanceKey): Promise<RequestOutcome<Delivered>> => {
        const other = nodes.get(target);
        if (other === undefined || dead.has(target)) return { status: "no_responders" };
        return { status: "ok", value: await other.signals.deliverHere(agent, instanceKey) };
      },
      find: async () => undefined,
    });
    const desk: SignalDesk = {
      applySignal: async (approvalId, signal, payload) => {
        if (decided.has(approvalId)) return undefined;
        decided.add(approvalId);
        node.woken.push({ id: approvalId, payload });
        const approval = waitFor(approvalId, "", signal);
        return approval;
      },
      applyDecision: async () => ({ type: "missing" }),
    };
    node.signals.attach(desk);
    nodes.set(name, node);
    return node;
  };
  const waits = async () => {
    const connection = await connectTest(defer, { node: "reader" });
    const kv = await connection.kvm.open(names.signalWaitBucket);
    return async () => {
      const keys: string[] = [];
      for await (const key of await kv.keys()) keys.push(key);
      return keys;
    };
  };
  return { join, leases, dead, waits: await waits() };
}

describe.skipIf(!natsAvailable)("ClusterSignals", () => {
  it("reaches nobody when nobody waits, and the call on another node once, through its owner", async () => {
    const c = await cluster("sig-route");
    const n1 = await c.join("n1");
    const n2 = await c.join("n2");
    expect(await n2.signals.send("deploy", 1)).toEqual([]);

    const wait = waitFor("appr_1", "k1", "deploy");
    n1.runs.add("k1");
    c.leases.set("k1", "n1");
    n1.signals.waiting(wait);
    await until(async () => (await c.waits()).length === 1, { timeoutMs: 10_000 });
    expect(await n2.signals.send("other", 1)).toEqual([]);
    const reached = await n2.signals.send("deploy", { version: "1.2.0" });
    expect(reached.map((approval) => approval.id)).toEqual(["appr_1"]);
    expect(n1.woken).toEqual([{ id: "appr_1", payload: { version: "1.2.0" } }]);
    expect(n2.woken).toEqual([]);

    // Decided: the owner's desk settles it, and it is found no more.
    n1.signals.settled(wait);
    await until(async () => (await c.waits()).length === 0, { timeoutMs: 10_000 });
    expect(await n2.signals.send("deploy", 2)).toEqual([]);
    expect(n1.woken.length).toBe(1);
  });

  it("keeps a signal for a call whose owner is dead, for the node that takes the instance over; a second one is not kept", async () => {
    const c = await cluster("sig-kept");
    const n1 = await c.join("n1");
    const n2 = await c.join("n2");
    const wait = waitFor("appr_2", "k2", "deploy");
    n1.runs.add("k2");
    c.leases.set("k2", "n1");
    n1.signals.waiting(wait);
    await until(async () => (await c.waits()).length === 1, { timeoutMs: 10_000 });
    c.dead.add("n1");

    expect((await n2.signals.send("deploy", "first")).map((approval) => approval.id)).toEqual(["appr_2"]);
    expect(await n2.signals.send("deploy", "second")).toEqual([]);
    expect(n1.woken).toEqual([]);
    // Not yet n2's: nothing applied by asking.
    expect(await n2.signals.deliverHere("ops", "k2")).toEqual({ woken: 0 });

    c.leases.set("k2", "n2");
    n2.runs.add("k2");
    expect(await n2.signals.deliverHere("ops", "k2")).toEqual({ woken: 1 });
    expect(await n2.signals.deliverHere("ops", "k2")).toEqual({ woken: 0 });
    expect(n2.woken).toEqual([{ id: "appr_2", payload: "first" }]);
  });

  it("applies at a call's deadline what was kept for it before that deadline, and says so", async () => {
    const c = await cluster("sig-in-time");
    const n1 = await c.join("n1");
    const n2 = await c.join("n2");
    const now = Date.now();
    const inTime = { ...waitFor("appr_t", "kt", "deploy"), expiresAt: now + 60_000 };
    const tooLate = { ...waitFor("appr_l", "kl", "late"), expiresAt: now - 60_000 };
    for (const [wait, key] of [
      [inTime, "kt"],
      [tooLate, "kl"],
    ] as const) {
      n1.runs.add(key);
      c.leases.set(key, "n1");
      n1.signals.waiting(wait);
    }
    await until(async () => (await c.waits()).length === 2, { timeoutMs: 10_000 });
    // Nothing kept yet: the deadline is applied.
    expect(await n2.signals.keptInTime(inTime)).toBe(false);
    c.dead.add("n1");
    expect((await n2.signals.send("deploy", "in time")).map((approval) => approval.id)).toEqual(["appr_t"]);
    expect((await n2.signals.send("late", "after")).map((approval) => approval.id)).toEqual(["appr_l"]);
    // n2 takes both over; their deadlines come before it asked for their mail.
    for (const key of ["kt", "kl"]) {
      c.leases.set(key, "n2");
      n2.runs.add(key);
    }
    expect(await n2.signals.keptInTime(inTime)).toBe(true);
    expect(n2.woken).toEqual([{ id: "appr_t", payload: "in time" }]);
    expect(await n2.signals.keptInTime(tooLate)).toBe(false);
    expect(n2.woken.length).toBe(1);
  });
});
