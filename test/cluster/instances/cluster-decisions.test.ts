/**
 * People's decisions through ClusterSignals on the local NATS, two nodes in one process with a desk each that
 * decides a call once: a decision sent to n2 for a call n1 runs is applied by n1 and answered with n1's approval; one
 * sent to the node running the call is left to its desk; a decider the approval does not name is refused and keeps
 * nothing; an unknown id is missing; a decision for a call whose owner is dead is kept (a second one is the conflict
 * answer with the first) and applied once by the node that takes the instance over.
 */
import { describe, expect, it } from "bun:test";
import { ClusterSignals } from "../../../src/cluster/instances/cluster-signals.ts";
import type { Delivered } from "../../../src/cluster/instances/held-mail.ts";
import type { RequestOutcome } from "../../../src/cluster/nats/messenger.ts";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import type { DecideAnswer } from "../../../src/orchestrator/approvals/decide-request.ts";
import type { Approval } from "../../../src/protocol/approval.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { until } from "../../helpers/goondan-process.ts";
import { connectTest, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";

const defer = useCleanups();

const held = (id: string, instanceKey: string, approvers?: string[]): Approval => ({
  id,
  agent: "ops",
  instanceKey,
  eventId: `evt_${id}`,
  turnId: "turn_1",
  traceId: "t",
  toolCallId: `call_${id}`,
  toolName: "effects__append",
  arguments: {},
  requestedAt: 1,
  ...(approvers === undefined ? {} : { approvers }),
});

interface TestNode {
  name: string;
  signals: ClusterSignals;
  /** The decisions its desk applied: approval id and decision. */
  applied: string[];
  runs: Set<string>;
}

async function cluster(label: string, approvals: Approval[]) {
  const swarm = testSwarm(label);
  removeSwarmAfter(defer, swarm);
  const names = clusterNames(swarm);
  const nodes = new Map<string, TestNode>();
  const leases = new Map<string, string>();
  const dead = new Set<string>();
  /** The one durable truth of the fake desks: approval id → its decided copy. */
  const decided = new Map<string, Approval>();
  const join = async (name: string): Promise<TestNode> => {
    const connection = await connectTest(defer, { node: name });
    const node: TestNode = { name, applied: [], runs: new Set(), signals: undefined as never };
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
      find: async (id) => decided.get(id) ?? approvals.find((approval) => approval.id === id),
    });
    node.signals.attach({
      applySignal: async () => undefined,
      applyDecision: async (request): Promise<DecideAnswer> => {
        const first = decided.get(request.id);
        if (first !== undefined) return { type: "already", approval: first };
        const approval = approvals.find((one) => one.id === request.id) as Approval;
        const done = { ...approval, decision: { decision: request.decision, decidedAt: 2 } };
        decided.set(request.id, done);
        node.applied.push(`${request.id} ${request.decision}`);
        node.signals.settled(approval);
        return { type: "decided", approval: done };
      },
    });
    nodes.set(name, node);
    return node;
  };
  const registered = async () => {
    const kv = await (await connectTest(defer, { node: "reader" })).kvm.open(names.approvalBucket);
    const keys: string[] = [];
    for await (const key of await kv.keys()) keys.push(key);
    return keys;
  };
  return { join, leases, dead, registered };
}

describe.skipIf(!natsAvailable)("ClusterSignals deciding people's approvals", () => {
  it("has the owner apply a decision sent to another node, once, and leaves one sent to the owner to its desk", async () => {
    const alive = held("appr_1", "k1");
    const c = await cluster("dec-alive", [alive]);
    const n1 = await c.join("n1");
    const n2 = await c.join("n2");
    n1.runs.add("k1");
    c.leases.set("k1", "n1");
    n1.signals.waiting(alive);
    await until(async () => (await c.registered()).length === 1, { timeoutMs: 10_000 });

    expect(await n1.signals.decide({ id: "appr_1", decision: "approve" })).toBeUndefined();
    expect(await n2.signals.decide({ id: "appr_missing", decision: "approve" })).toEqual({ type: "missing" });
    const answer = await n2.signals.decide({ id: "appr_1", decision: "approve" });
    expect(answer).toEqual({ type: "decided", approval: expect.objectContaining({ id: "appr_1" }) });
    expect(answer?.type === "decided" && answer.approval.decision?.decision).toBe("approve");
    expect(n1.applied).toEqual(["appr_1 approve"]);
    await until(async () => (await c.registered()).length === 0, { timeoutMs: 10_000 });
    const again = await n2.signals.decide({ id: "appr_1", decision: "deny" });
    expect(again?.type).toBe("already");
    expect(n1.applied).toEqual(["appr_1 approve"]);
  });

  it("refuses a decider the approval does not name, keeping nothing", async () => {
    const named = held("appr_2", "k2", ["alice"]);
    const c = await cluster("dec-forbidden", [named]);
    const n1 = await c.join("n1");
    const n2 = await c.join("n2");
    n1.runs.add("k2");
    c.leases.set("k2", "n1");
    n1.signals.waiting(named);
    await until(async () => (await c.registered()).length === 1, { timeoutMs: 10_000 });
    expect((await n2.signals.decide({ id: "appr_2", decision: "approve" }))?.type).toBe("forbidden");
    expect((await n2.signals.decide({ id: "appr_2", decision: "approve", approver: "bob" }))?.type).toBe("forbidden");
    const answer = await n2.signals.decide({ id: "appr_2", decision: "deny", approver: "alice" });
    expect(answer?.type).toBe("decided");
    expect(n1.applied).toEqual(["appr_2 deny"]);
  });

  it("keeps a decision for a call whose owner is dead; a second one gets the first; the next owner applies it once", async () => {
    const orphan = held("appr_3", "k3");
    const c = await cluster("dec-dead", [orphan]);
    const n1 = await c.join("n1");
    const n2 = await c.join("n2");
    n1.runs.add("k3");
    c.leases.set("k3", "n1");
    n1.signals.waiting(orphan);
    await until(async () => (await c.registered()).length === 1, { timeoutMs: 10_000 });
    c.dead.add("n1");

    const kept = await n2.signals.decide({ id: "appr_3", decision: "deny", reason: "not now", approver: "carol" });
    expect(kept).toEqual({
      type: "decided",
      approval: expect.objectContaining({
        id: "appr_3",
        decision: { decision: "deny", decidedAt: expect.any(Number), reason: "not now", decidedBy: "carol" },
      }),
    });
    const second = await n2.signals.decide({ id: "appr_3", decision: "approve" });
    expect(second?.type === "already" && second.approval.decision?.decision).toBe("deny");
    expect(n1.applied).toEqual([]);

    c.leases.set("k3", "n2");
    n2.runs.add("k3");
    const delivered = await n2.signals.deliverHere("ops", "k3");
    expect(delivered).toEqual({
      woken: 1,
      decisions: [{ approvalId: "appr_3", type: "decided", approval: expect.objectContaining({ id: "appr_3" }) }],
    });
    expect(await n2.signals.deliverHere("ops", "k3")).toEqual({ woken: 0 });
    expect(n2.applied).toEqual(["appr_3 deny"]);
  });
});
