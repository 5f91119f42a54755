/**
 * The ApprovalDesk's decisions in cluster mode, with the real SQLite store and a recording SignalRouting: a call held
 * for a person is registered with the routing when armed and removed once decided (a timer is not); a decision the
 * routing answers (its instance runs elsewhere) is that answer and leaves this store alone; one it leaves to the desk
 * (the instance runs here) is applied here once; and a decision kept by another node is applied with the same check
 * of the approvers as one made here.
 */
import { describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { ApprovalDesk } from "../../src/orchestrator/approvals/approval-desk.ts";
import type { DecideAnswer } from "../../src/orchestrator/approvals/decide-request.ts";
import type { SignalRouting } from "../../src/orchestrator/approvals/signal-routing.ts";
import type { InboxEntry } from "../../src/orchestrator/instances/instance-queue.ts";
import { PendingRequests } from "../../src/orchestrator/routing/pending-requests.ts";
import { OutcomeWaiters } from "../../src/orchestrator/routing/turn-outcomes.ts";
import type { AgentEvent } from "../../src/protocol/agent-event.ts";
import type { ApprovalRequest } from "../../src/protocol/approval.ts";
import { TIMER_APPROVER } from "../../src/protocol/suspension.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { storeFor, tempStateRoot } from "../agent/support/test-env.ts";

const defer = useCleanups();
const SWARM = "swarm";
const NOW = 1_000_000;

const event = (id: string, instanceKey: string): AgentEvent => ({
  id,
  type: "user.input",
  input: "go",
  agent: "ops",
  instanceKey,
  source: { kind: "api", name: "api" },
  traceId: "0".repeat(32),
  callChain: [],
  metadata: {},
  createdAt: new Date(0).toISOString(),
});

const request = (id: string, evt: AgentEvent, extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id,
  agent: "ops",
  instanceKey: evt.instanceKey,
  eventId: evt.id,
  turnId: "turn_1",
  traceId: "0".repeat(32),
  toolCallId: `call_${id}`,
  toolName: "effects__append",
  arguments: {},
  requestedAt: NOW,
  ...extra,
});

function world(routed: Record<string, DecideAnswer>) {
  const root = tempStateRoot();
  defer(() => rmSync(root, { recursive: true, force: true }));
  const store = storeFor(root);
  defer(() => store.close());
  const clock = new ManualClock(NOW);
  const delivered: InboxEntry[] = [];
  const calls: string[] = [];
  const signals: SignalRouting = {
    attach: () => {},
    send: async () => [],
    decide: async (asked) => {
      calls.push(`decide ${asked.id}`);
      return routed[asked.id];
    },
    waiting: (approval) => void calls.push(`waiting ${approval.id}`),
    settled: (approval) => void calls.push(`settled ${approval.id}`),
  };
  const desk = new ApprovalDesk({
    store,
    swarm: () => SWARM,
    clock,
    logger: silentLogger(),
    waiters: new OutcomeWaiters(),
    pending: new PendingRequests({ clock, onTimeout: () => {} }),
    instance: () => ({ approvalsDecided: (entry) => void delivered.push(entry) }),
    existing: () => undefined,
    publish: () => {},
    watchEvent: () => () => {},
    signals,
  });
  defer(() => desk.close());
  const held = async (evt: AgentEvent, requests: ApprovalRequest[]) => {
    await store.accept(SWARM, evt, 1);
    await store.commit(
      { swarm: SWARM, agent: "ops", instanceKey: evt.instanceKey },
      { approvals: { requested: requests } },
      {
        status: "awaiting_approval",
        agent: "ops",
        instanceKey: evt.instanceKey,
        eventId: evt.id,
        turnId: "turn_1",
        response: "",
        finishReason: "awaiting_approval",
        approvalIds: requests.map((one) => one.id),
      },
    );
  };
  return { store, delivered, calls, desk, held };
}

describe("ApprovalDesk deciding through a cluster's routing", () => {
  it("registers a call held for a person, lets the routing answer for one run elsewhere, and decides one run here", async () => {
    const here = event("evt_here", "here");
    const nap = event("evt_nap", "nap");
    const elsewhere = { type: "decided", approval: { id: "appr_far" } } as DecideAnswer;
    const w = world({ appr_far: elsewhere });
    await w.held(here, [request("appr_here", here)]);
    await w.held(nap, [request("appr_nap", nap, { approvers: [TIMER_APPROVER], expiresAt: NOW + 60_000 })]);
    await w.desk.armInstance("ops", "here");
    await w.desk.armInstance("ops", "nap");
    expect(w.calls).toEqual(["waiting appr_here"]); // a timer's deadline is its owner's: not registered

    expect(await w.desk.decide({ id: "appr_far", decision: "approve" })).toBe(elsewhere);
    const decided = await w.desk.decide({ id: "appr_here", decision: "approve" });
    expect(decided.type).toBe("decided");
    expect(w.delivered.map((entry) => entry.event.id)).toEqual(["evt_here"]);
    expect(w.calls).toEqual(["waiting appr_here", "decide appr_far", "decide appr_here", "settled appr_here"]);
    expect((await w.desk.decide({ id: "appr_here", decision: "deny" })).type).toBe("already");
  });

  it("applies a decision kept by another node once, with the same check of the approvers", async () => {
    const named = event("evt_named", "named");
    const w = world({});
    await w.held(named, [request("appr_named", named, { approvers: ["alice"] })]);
    expect((await w.desk.applyDecision({ id: "appr_named", decision: "approve", approver: "bob" })).type).toBe(
      "forbidden",
    );
    expect((await w.desk.applyDecision({ id: "appr_missing", decision: "approve" })).type).toBe("missing");
    const first = await w.desk.applyDecision({ id: "appr_named", decision: "deny", approver: "alice" });
    expect(first.type === "decided" && first.approval.decision?.decidedBy).toBe("alice");
    expect((await w.desk.applyDecision({ id: "appr_named", decision: "approve", approver: "alice" })).type).toBe(
      "already",
    );
    expect(w.delivered.length).toBe(1);
  });
});
