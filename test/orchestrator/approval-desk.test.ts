/**
 * The ApprovalDesk with a manual clock and the real SQLite store: a deadline fires as a `timeout` decision that
 * reopens the event and hands it to its instance with the decision; `approvers` refuses anyone else; a decision is
 * applied once; a stopped turn answers the waiters of the event and of the request waiting on it; a signal wakes the
 * calls suspended for it, which no person may decide.
 */
import { describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { ApprovalDesk } from "../../src/orchestrator/approvals/approval-desk.ts";
import type { InboxEntry } from "../../src/orchestrator/instances/instance-queue.ts";
import { PendingRequests } from "../../src/orchestrator/routing/pending-requests.ts";
import { OutcomeWaiters } from "../../src/orchestrator/routing/turn-outcomes.ts";
import type { AgentEvent } from "../../src/protocol/agent-event.ts";
import type { ApprovalRequest } from "../../src/protocol/approval.ts";
import { signalApprover, TIMER_APPROVER, wakeUpOf } from "../../src/protocol/suspension.ts";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import type { TurnOutcome } from "../../src/protocol/turn-outcome.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { storeFor, tempStateRoot } from "../agent/support/test-env.ts";

const defer = useCleanups();
const SWARM = "swarm";

function world() {
  const root = tempStateRoot();
  defer(() => rmSync(root, { recursive: true, force: true }));
  const store = storeFor(root);
  defer(() => store.close());
  const clock = new ManualClock(1_000_000);
  const waiters = new OutcomeWaiters();
  const pending = new PendingRequests({ clock, onTimeout: () => {} });
  const delivered: InboxEntry[] = [];
  const published: RuntimeEvent[] = [];
  const inFlight = new Map<string, InboxEntry>();
  const desk = new ApprovalDesk({
    store,
    swarm: () => SWARM,
    clock,
    logger: silentLogger(),
    waiters,
    pending,
    instance: () => ({ approvalsDecided: (entry) => void delivered.push(entry) }),
    existing: (address) => {
      const entry = inFlight.get(address);
      const [agent = "", instanceKey = ""] = address.split("/");
      return entry === undefined ? undefined : { agent, instanceKey, inFlight: entry };
    },
    publish: (events) => void published.push(...events),
    watchEvent: () => () => {},
  });
  defer(() => desk.close());
  return { store, clock, waiters, pending, delivered, published, inFlight, desk };
}

const event = (id: string, overrides: Partial<AgentEvent> = {}): AgentEvent => ({
  id,
  type: "user.input",
  input: "go",
  agent: "ops",
  instanceKey: "k",
  source: { kind: "api", name: "api" },
  traceId: "0".repeat(32),
  callChain: [],
  metadata: {},
  createdAt: new Date(0).toISOString(),
  ...overrides,
});

const request = (id: string, eventId: string, extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id,
  agent: "ops",
  instanceKey: "k",
  eventId,
  turnId: "turn_1",
  traceId: "0".repeat(32),
  toolCallId: `call_${id}`,
  toolName: "bash__exec",
  arguments: { command: "ls" },
  requestedAt: 1_000_000,
  ...extra,
});
const stopped = (eventId: string, ids: string[]): TurnOutcome => ({
  status: "awaiting_approval",
  agent: "ops",
  instanceKey: "k",
  eventId,
  turnId: "turn_1",
  response: "",
  finishReason: "awaiting_approval",
  approvalIds: ids,
});

async function hold(
  options: { store: ReturnType<typeof storeFor>; desk: ApprovalDesk },
  evt: AgentEvent,
  requests: ApprovalRequest[],
): Promise<void> {
  await options.store.accept(SWARM, evt, 1);
  const outcome = stopped(
    evt.id,
    requests.map((item) => item.id),
  );
  await options.store.commit(
    { swarm: SWARM, agent: "ops", instanceKey: "k" },
    { approvals: { requested: requests } },
    outcome,
  );
  options.desk.turnStopped(evt, outcome);
}

describe("ApprovalDesk", () => {
  it("wakes the calls waiting for a signal with its payload, keeps them off the person's list, and knows a signal for nobody", async () => {
    const w = world();
    const waiting = { toolName: "timer__waitForSignal", approvers: [signalApprover("deploy")], expiresAt: 2_000_000 };
    await hold(w, event("evt_s"), [request("appr_s", "evt_s", waiting)]);
    await hold(w, event("evt_t", { instanceKey: "k" }), [
      request("appr_t", "evt_t", { toolName: "timer__sleep", approvers: [TIMER_APPROVER], expiresAt: 1_500_000 }),
    ]);
    expect(await w.desk.pending()).toEqual([]);
    expect((await w.desk.suspended()).map((approval) => approval.id)).toEqual(["appr_s", "appr_t"]);
    expect(await w.desk.signal("elsewhere", 1)).toEqual({ type: "missing" });
    const answer = await w.desk.signal("deploy", { version: "1.2.0" });
    expect(answer.type === "delivered" ? answer.approvals.map((approval) => approval.id) : []).toEqual(["appr_s"]);
    const [entry] = w.delivered;
    expect(entry?.approvals?.map(wakeUpOf)).toEqual([
      { reason: "signal", at: 1_000_000, signal: "deploy", payload: { version: "1.2.0" } },
    ]);
    expect(await w.desk.signal("deploy", null)).toEqual({ type: "missing" });
    // A person cannot decide a suspension.
    expect((await w.desk.decide({ id: "appr_t", decision: "approve", approver: "alice" })).type).toBe("forbidden");
  });

  it("applies a deadline as a timeout decision that hands the event back with it", async () => {
    const w = world();
    await hold(w, event("evt_1"), [request("appr_1", "evt_1", { expiresAt: 1_030_000 })]);
    await until(() => w.clock.pendingDelays().length === 1, { timeoutMs: 5_000 });
    expect(w.clock.pendingDelays()).toEqual([30_000]);
    w.clock.advance(30_000);
    await until(() => w.delivered.length > 0, { timeoutMs: 5_000 });
    expect(
      w.delivered.map((entry) => [entry.event.id, entry.approvals?.map((approval) => approval.decision?.decision)]),
    ).toEqual([["evt_1", ["timeout"]]]);
    expect(w.published.map((published) => [published.type, published.data?.decision])).toEqual([
      ["approval.decided", "timeout"],
    ]);
    expect(await w.desk.pending()).toEqual([]);
  });

  it("arms at start the deadlines of approvals stored before, applying those already past", async () => {
    const w = world();
    await hold(w, event("evt_2"), [request("appr_2", "evt_2", { expiresAt: 999_000 })]);
    w.desk.close();
    const again = new ApprovalDesk({
      store: w.store,
      swarm: () => SWARM,
      clock: w.clock,
      logger: silentLogger(),
      waiters: w.waiters,
      pending: w.pending,
      instance: () => ({ approvalsDecided: (entry) => void w.delivered.push(entry) }),
      existing: () => undefined,
      publish: () => {},
      watchEvent: () => () => {},
    });
    defer(() => again.close());
    await again.start();
    w.clock.advance(0);
    await until(() => w.delivered.length > 0, { timeoutMs: 5_000 });
    expect(w.delivered.map((entry) => entry.event.id)).toEqual(["evt_2"]);
  });

  it("lets only the named approvers decide, once", async () => {
    const w = world();
    await hold(w, event("evt_3"), [request("appr_3", "evt_3", { approvers: ["alice"] })]);
    expect((await w.desk.decide({ id: "appr_3", decision: "approve" })).type).toBe("forbidden");
    expect((await w.desk.decide({ id: "appr_3", decision: "approve", approver: "mallory" })).type).toBe("forbidden");
    const decided = await w.desk.decide({ id: "appr_3", decision: "approve", approver: "alice" });
    expect(decided.type).toBe("decided");
    expect(decided.type === "decided" ? decided.approval.decision?.decidedBy : "").toBe("alice");
    expect((await w.desk.decide({ id: "appr_3", decision: "deny", approver: "alice" })).type).toBe("already");
    expect((await w.desk.decide({ id: "appr_nope", decision: "deny" })).type).toBe("missing");
    expect(w.delivered.length).toBe(1);
  });

  it("hands the event back only once every approval of it is decided", async () => {
    const w = world();
    await hold(w, event("evt_4"), [request("appr_4a", "evt_4"), request("appr_4b", "evt_4")]);
    await w.desk.decide({ id: "appr_4a", decision: "approve" });
    expect(w.delivered).toEqual([]);
    await w.desk.decide({ id: "appr_4b", decision: "deny", reason: "no" });
    expect(w.delivered.map((entry) => entry.approvals?.map((approval) => approval.decision?.decision))).toEqual([
      ["approve", "deny"],
    ]);
  });

  it("answers the waiters of the stopped event and of the turn whose request waits on it", async () => {
    const w = world();
    const entryEvent = event("evt_entry", { agent: "lead", instanceKey: "main" });
    w.inFlight.set("lead/main", { event: entryEvent, crashes: 0, deliveries: 1, acceptedAt: 1 });
    w.pending.add({
      correlationId: "corr_1",
      requester: "lead/main",
      agent: "ops",
      instanceKey: "k",
      eventId: "evt_5",
      deadline: 2_000_000,
      blocking: true,
    });
    const entryOutcome = w.waiters.outcome("evt_entry");
    const ownOutcome = w.waiters.outcome("evt_5");
    await hold(w, event("evt_5", { replyTo: { target: "lead/main", correlationId: "corr_1" } }), [
      request("appr_5", "evt_5"),
    ]);
    expect(await ownOutcome).toMatchObject({ status: "awaiting_approval", approvalIds: ["appr_5"] });
    expect(await entryOutcome).toMatchObject({
      status: "awaiting_approval",
      agent: "lead",
      eventId: "evt_entry",
      approvalIds: ["appr_5"],
    });
    // The request itself still waits for the real reply.
    expect(w.pending.peek({ requester: "lead/main", correlationId: "corr_1" })).toBeDefined();
  });
});
