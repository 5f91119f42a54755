/**
 * The ApprovalDesk's cluster side, with a manual clock, the real SQLite store and a recording SignalRouting: a node
 * that takes an instance over arms the deadlines of that instance's suspended calls only (past ones at once), a node
 * that loses it disarms them so they never fire there, each signal wait is registered with the routing when armed
 * and removed once decided, a signal is sent through the routing (nobody reached: missing), and the owner applies a
 * routed signal once, only to a call that waits for that signal.
 */
import { describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { ApprovalDeadlines } from "../../src/orchestrator/approvals/approval-deadlines.ts";
import { ApprovalDesk } from "../../src/orchestrator/approvals/approval-desk.ts";
import type { SignalRouting } from "../../src/orchestrator/approvals/signal-routing.ts";
import type { InboxEntry } from "../../src/orchestrator/instances/instance-queue.ts";
import { PendingRequests } from "../../src/orchestrator/routing/pending-requests.ts";
import { OutcomeWaiters } from "../../src/orchestrator/routing/turn-outcomes.ts";
import type { AgentEvent } from "../../src/protocol/agent-event.ts";
import type { Approval, ApprovalRequest } from "../../src/protocol/approval.ts";
import { signalApprover, TIMER_APPROVER, wakeUpOf } from "../../src/protocol/suspension.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { storeFor, tempStateRoot } from "../agent/support/test-env.ts";

const defer = useCleanups();
const SWARM = "swarm";
const NOW = 1_000_000;

function routing() {
  const calls: string[] = [];
  const sent: Approval[] = [];
  /** Calls whose kept mail the routing applies at their deadline (keptInTime). */
  const kept = new Set<string>();
  const signals: SignalRouting = {
    keptInTime: async (approval) => {
      calls.push(`keptInTime ${approval.id}`);
      return kept.has(approval.id);
    },
    attach: () => {},
    send: async (name) => {
      calls.push(`send ${name}`);
      return sent;
    },
    decide: async () => undefined,
    waiting: (approval) => void calls.push(`waiting ${approval.id}`),
    settled: (approval) => void calls.push(`settled ${approval.id}`),
  };
  return { calls, sent, kept, signals };
}

function world() {
  const root = tempStateRoot();
  defer(() => rmSync(root, { recursive: true, force: true }));
  const store = storeFor(root);
  defer(() => store.close());
  const clock = new ManualClock(NOW);
  const delivered: InboxEntry[] = [];
  const route = routing();
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
    signals: route.signals,
  });
  defer(() => desk.close());
  return { store, clock, delivered, desk, route };
}

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

const suspension = (id: string, evt: AgentEvent, extra: Partial<ApprovalRequest>): ApprovalRequest => ({
  id,
  agent: "ops",
  instanceKey: evt.instanceKey,
  eventId: evt.id,
  turnId: "turn_1",
  traceId: "0".repeat(32),
  toolCallId: `call_${id}`,
  toolName: "timer__sleep",
  arguments: {},
  requestedAt: NOW,
  ...extra,
});

/** The store holds `evt`'s turn stopped at `requests`, as a taken-over node finds it after its replay. */
async function stored(w: ReturnType<typeof world>, evt: AgentEvent, requests: ApprovalRequest[]): Promise<void> {
  await w.store.accept(SWARM, evt, 1);
  await w.store.commit(
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
      approvalIds: requests.map((request) => request.id),
    },
  );
}

describe("ApprovalDesk on a node that takes instances over", () => {
  it("arms the deadlines of the taken instance only, registers its signal waits, and disarms them when it leaves", async () => {
    const w = world();
    const nap = event("evt_nap", "nap");
    const wait = event("evt_wait", "wait");
    const other = event("evt_other", "other");
    await stored(w, nap, [suspension("appr_nap", nap, { approvers: [TIMER_APPROVER], expiresAt: NOW + 5000 })]);
    await stored(w, wait, [
      suspension("appr_wait", wait, {
        toolName: "timer__waitForSignal",
        approvers: [signalApprover("deploy")],
        expiresAt: NOW + 9000,
      }),
    ]);
    await stored(w, other, [suspension("appr_other", other, { approvers: [TIMER_APPROVER], expiresAt: NOW + 1000 })]);

    expect((await w.desk.armInstance("ops", "nap")).map((approval) => approval.id)).toEqual(["appr_nap"]);
    expect((await w.desk.armInstance("ops", "wait")).length).toBe(1);
    expect(w.clock.pendingDelays()).toEqual([5000, 9000]);
    expect(w.route.calls).toEqual(["waiting appr_wait"]); // a timer is no signal wait
    // Offered again (the event delivered twice): armed once.
    await w.desk.armInstance("ops", "nap");
    expect(w.clock.pendingDelays()).toEqual([5000, 9000]);

    // The node loses `wait`: its deadline is the next owner's, never fired here.
    w.desk.disarm("ops", "wait");
    w.clock.advance(10_000);
    await until(() => w.delivered.length === 1, { timeoutMs: 5000 });
    expect(w.delivered.map((entry) => [entry.event.id, entry.approvals?.map(wakeUpOf)?.[0]?.reason])).toEqual([
      ["evt_nap", "time"],
    ]);
    expect((await w.desk.suspended()).map((approval) => approval.id).sort()).toEqual(["appr_other", "appr_wait"]);
  });

  it("applies a deadline that passed during the takeover at once, and tells the routing the wait is settled", async () => {
    const w = world();
    const wait = event("evt_late", "late");
    await stored(w, wait, [
      suspension("appr_late", wait, {
        toolName: "timer__waitForSignal",
        approvers: [signalApprover("deploy")],
        expiresAt: NOW - 1,
      }),
    ]);
    await w.desk.armInstance("ops", "late");
    w.clock.advance(0);
    await until(() => w.delivered.length === 1, { timeoutMs: 5000 });
    expect(w.delivered[0]?.approvals?.map(wakeUpOf)).toEqual([{ reason: "timeout", at: NOW, signal: "deploy" }]);
    await until(() => w.route.calls.includes("settled appr_late"), { timeoutMs: 5000 });
  });

  it("sends signals through the routing, and applies a routed one once, only to a call waiting for it", async () => {
    const w = world();
    const wait = event("evt_sig", "sig");
    await stored(w, wait, [
      suspension("appr_sig", wait, {
        toolName: "timer__waitForSignal",
        approvers: [signalApprover("deploy")],
        expiresAt: NOW + 60_000,
      }),
    ]);
    expect(await w.desk.signal("deploy", 1)).toEqual({ type: "missing" });
    expect(w.route.calls).toEqual(["send deploy"]);

    expect(await w.desk.applySignal("appr_sig", "other-signal", 1)).toBeUndefined();
    expect(await w.desk.applySignal("appr_missing", "deploy", 1)).toBeUndefined();
    const woken = await w.desk.applySignal("appr_sig", "deploy", { version: "1.2.0" });
    expect(woken?.id).toBe("appr_sig");
    expect(await w.desk.applySignal("appr_sig", "deploy", { version: "9" })).toBeUndefined();
    expect(w.delivered.map((entry) => entry.approvals?.map(wakeUpOf))).toEqual([
      [{ reason: "signal", at: NOW, signal: "deploy", payload: { version: "1.2.0" } }],
    ]);
    expect(w.route.calls.filter((call) => call === "settled appr_sig").length).toBeGreaterThanOrEqual(1);
  });

  it("lets what was kept for a call before its deadline come first: the deadline is not applied then", async () => {
    const w = world();
    const wait = event("evt_kept", "kept");
    await stored(w, wait, [
      suspension("appr_kept", wait, {
        toolName: "timer__waitForSignal",
        approvers: [signalApprover("deploy")],
        expiresAt: NOW - 1,
      }),
    ]);
    w.route.kept.add("appr_kept");
    await w.desk.armInstance("ops", "kept");
    w.clock.advance(0);
    await until(() => w.route.calls.includes("keptInTime appr_kept"), { timeoutMs: 5000 });
    await Bun.sleep(50);
    expect(w.delivered).toEqual([]);
    expect((await w.desk.suspended()).map((approval) => approval.id)).toEqual(["appr_kept"]);
  });
});

describe("ApprovalDeadlines", () => {
  it("arms once per approval, clears by id or by instance, and re-arms a deadline further than a timer holds", () => {
    const clock = new ManualClock(0);
    const due: string[] = [];
    const deadlines = new ApprovalDeadlines(clock, (approval) => void due.push(approval.id));
    const approval = (id: string, instanceKey: string, expiresAt?: number) =>
      ({ id, agent: "ops", instanceKey, expiresAt }) as Approval;
    deadlines.arm(approval("a", "k1", 100));
    deadlines.arm(approval("a", "k1", 100));
    deadlines.arm(approval("b", "k1", 200));
    deadlines.arm(approval("c", "k2", 300));
    deadlines.arm(approval("none", "k2"));
    deadlines.arm(approval("far", "k3", 3_000_000_000));
    expect(clock.pendingDelays()).toEqual([100, 200, 300, 2_147_483_647]);
    expect(deadlines.disarm("ops", "k1")).toBe(2);
    deadlines.clear("c");
    clock.advance(2_147_483_647);
    expect(due).toEqual([]);
    expect(clock.pendingDelays()).toEqual([3_000_000_000 - 2_147_483_647]);
    clock.advance(3_000_000_000);
    expect(due).toEqual(["far"]);
    deadlines.close();
    deadlines.arm(approval("after", "k1", 10));
    expect(clock.pendingDelays()).toEqual([]);
  });
});
