/**
 * The ApprovalDesk: where people's decisions on held tool calls reach the swarm. It lists the pending approvals,
 * applies a decision once (the store sets it only while none is set: a second one is `already`, also after a
 * restart), refuses a decider the approval does not name (`approvers`), and runs the deadlines (`expiresAt`) as
 * timers — started again from the store at start, where a deadline that passed while goondan was down is applied at
 * once. When an event's last approval is decided the store makes it unanswered again and its instance gets it back
 * first, with every decision, so the same turn goes on. Calls suspended for a time or a signal (the `timer` tool,
 * ../../protocol/suspension.ts) are approvals no person decides: their deadline, or their signal, does. A turn that stops for approvals settles the waiters of its
 * event and of every event up its request chain with `awaiting_approval` (the entry agent's `wait` answers).
 */
import type { Clock } from "../../shared/clock.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { Approval, ApprovalDecisionKind } from "../../protocol/approval.ts";
import { awaitedSignal, isSuspension, signalApprover } from "../../protocol/suspension.ts";
import type { JsonValue } from "../../shared/json.ts";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import { decidedEvent } from "./approval-decided-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { TurnProgress } from "../../protocol/turn-progress.ts";
import { mayDecide, type DecideAnswer, type DecideRequest } from "./decide-request.ts";
import { keepReplyRoute, settleChain } from "./request-chain.ts";
import type { Store } from "../../store/store.ts";
import type { InboxEntry } from "../instances/instance-queue.ts";
import type { PendingRequests } from "../routing/pending-requests.ts";
import type { OutcomeWaiters } from "../routing/turn-outcomes.ts";
import { ApprovalDeadlines } from "./approval-deadlines.ts";
import type { SignalDesk, SignalRouting } from "./signal-routing.ts";

export type { DecideAnswer, DecideRequest } from "./decide-request.ts";

export interface ApprovalDeskOptions {
  store: Store;
  /** The Swarm's instanceKey. */
  swarm: () => string;
  clock: Clock;
  logger: Logger;
  waiters: OutcomeWaiters;
  pending: PendingRequests;
  /** The instance an approval belongs to (created when it has none). */
  instance(agent: string, instanceKey: string): { approvalsDecided(entry: InboxEntry): void };
  /** A live instance by address, for the request chain. */
  existing(address: string): { agent: string; instanceKey: string; inFlight: InboxEntry | undefined } | undefined;
  publish(events: RuntimeEvent[]): void;
  /** Hands the progress of `event`'s trace to `listener` (the runtime event hub's watchEvent); returns the stop. */
  watchEvent(event: { id: string; traceId: string }, listener: (progress: TurnProgress) => void): () => void;
  /** Cluster mode: signals reach the waits of every node (signal-routing.ts). Default: this store's waits only. */
  signals?: SignalRouting;
}

export class ApprovalDesk implements SignalDesk {
  private readonly deadlines: ApprovalDeadlines;
  private closed = false;

  constructor(private readonly options: ApprovalDeskOptions) {
    this.deadlines = new ApprovalDeadlines(options.clock, (approval) => this.expire(approval));
  }

  /** Pending approvals a person decides, oldest first (not the suspensions: those are `suspended()`). */
  async pending(): Promise<Approval[]> {
    return (await this.undecided()).filter((approval) => !isSuspension(approval));
  }

  /** Calls suspended for a time or a signal (the `timer` tool), oldest first: decided by their deadline or signal. */
  async suspended(): Promise<Approval[]> {
    return (await this.undecided()).filter(isSuspension);
  }

  /**
   * `POST /v1/signals/:name`: wakes every call waiting for the signal, with `payload` as what it gets; `missing` when
   * none waits (the signal is kept nowhere: the sender hears it went to nobody).
   */
  async signal(
    name: string,
    payload: JsonValue,
  ): Promise<{ type: "delivered"; approvals: Approval[] } | { type: "missing" }> {
    if (this.options.signals) {
      const reached = await this.options.signals.send(name, payload);
      return reached.length === 0 ? { type: "missing" } : { type: "delivered", approvals: reached };
    }
    const waiting = (await this.suspended()).filter((approval) => awaitedSignal(approval) === name);
    const delivered: Approval[] = [];
    for (const approval of waiting) {
      const answer = await this.apply(approval.id, "approve", JSON.stringify(payload), signalApprover(name));
      if (answer.type === "decided") delivered.push(answer.approval);
    }
    return delivered.length === 0 ? { type: "missing" } : { type: "delivered", approvals: delivered };
  }

  /** Cluster mode: the node owning the call's instance wakes it with the signal (signal-routing.ts). */
  async applySignal(approvalId: string, name: string, payload: JsonValue): Promise<Approval | undefined> {
    const answer = await this.apply(approvalId, "approve", JSON.stringify(payload), signalApprover(name));
    return answer.type === "decided" ? answer.approval : undefined;
  }

  /** Cluster mode: the node owning the call's instance applies a decision another node kept for it (signal-routing.ts). */
  applyDecision(request: Pick<DecideRequest, "id" | "decision" | "reason" | "approver">): Promise<DecideAnswer> {
    return this.apply(request.id, request.decision, request.reason, request.approver);
  }

  /**
   * Cluster mode: this node took the instance over and holds its stored approvals: their deadlines are armed here
   * (those past applied now). Resolves with those that wait.
   */
  async armInstance(agent: string, instanceKey: string): Promise<Approval[]> {
    const pending = (await this.undecided()).filter(
      (approval) => approval.agent === agent && approval.instanceKey === instanceKey,
    );
    for (const approval of pending) this.arm(approval);
    return pending;
  }

  /** Cluster mode: the instance no longer runs here; its deadlines are another node's to run. */
  disarm(agent: string, instanceKey: string): void {
    this.deadlines.disarm(agent, instanceKey);
  }

  private undecided(): Promise<Approval[]> {
    return this.options.store.approvals({ swarm: this.options.swarm(), pending: true });
  }

  async get(id: string): Promise<Approval | undefined> {
    return (await this.options.store.approvals({ swarm: this.options.swarm(), id }))[0];
  }

  /** Arms the deadlines of every pending approval; those past are applied now. */
  async start(): Promise<void> {
    for (const approval of await this.undecided()) this.arm(approval);
  }

  /**
   * A person's decision. In cluster mode it is applied by the node running the approval's instance: the routing
   * answers for one that runs elsewhere (kept durably for it), and leaves one that runs here to this desk.
   */
  async decide(request: DecideRequest): Promise<DecideAnswer> {
    const routed = await this.options.signals?.decide(request);
    if (routed !== undefined) return routed;
    return this.apply(
      request.id,
      request.decision,
      request.reason,
      request.approver,
      request.wait === true || request.onProgress !== undefined,
      request.onProgress,
    );
  }

  /** A turn stopped for approvals (its commit is durable): deadlines armed, waiters up the request chain told. */
  turnStopped(event: AgentEvent, outcome: TurnOutcome): void {
    settleChain(event, outcome, this.options);
    const ids = new Set(outcome.approvalIds ?? []);
    this.undecided().then(
      (pending) => pending.filter((approval) => ids.has(approval.id)).forEach((approval) => this.arm(approval)),
      (error: unknown) =>
        this.options.logger.error(
          { error: describe(error).message },
          "could not read approvals to arm their deadlines",
        ),
    );
  }

  close(): void {
    this.closed = true;
    this.deadlines.close();
  }

  /** Its deadline armed, and a signal wait made known to the cluster (when there is one). */
  private arm(approval: Approval): void {
    if (this.closed || this.deadlines.armed(approval.id)) return;
    this.deadlines.arm(approval);
    if (heldForCluster(approval)) this.options.signals?.waiting(approval);
  }

  private expire(approval: Approval): void {
    (async () => {
      // In a cluster, a signal or decision sent before the deadline while no node ran the instance comes first.
      if ((await this.options.signals?.keptInTime?.(approval).catch(() => false)) === true) return;
      await this.apply(
        approval.id,
        "timeout",
        `no decision within the deadline (${new Date(approval.expiresAt ?? 0).toISOString()})`,
        "goondan",
      );
    })().catch((error: unknown) =>
      this.options.logger.error(
        { approvalId: approval.id, error: describe(error).message },
        "could not apply an approval's timeout",
      ),
    );
  }

  private async apply(
    id: string,
    decision: ApprovalDecisionKind,
    reason: string | undefined,
    approver: string | undefined,
    wait = false,
    onProgress?: (progress: TurnProgress) => void,
  ): Promise<DecideAnswer> {
    const { store, clock } = this.options;
    const swarm = this.options.swarm();
    const found = await this.get(id);
    if (found === undefined) return { type: "missing" };
    if (found.decision !== undefined) return { type: "already", approval: found };
    if (!mayDecide(found, decision, approver)) return { type: "forbidden", approval: found };
    // Registered before the event can be delivered again, so that its end cannot be missed.
    const outcome = wait ? this.options.waiters.outcome(found.eventId) : undefined;
    const stopWatching =
      onProgress && this.options.watchEvent({ id: found.eventId, traceId: found.traceId }, onProgress);
    const decided = await store.decideApproval(swarm, id, {
      decision,
      decidedAt: clock.now(),
      ...(reason === undefined ? {} : { reason }),
      ...(approver === undefined ? {} : { decidedBy: approver }),
    });
    if (decided.type !== "decided" || decided.reopened === undefined || outcome === undefined) stopWatching?.();
    else if (stopWatching) outcome.then(stopWatching, stopWatching);
    if (decided.type !== "decided") {
      if (decided.type === "already") this.settled(decided.approval);
      return decided;
    }
    const { approval } = decided;
    this.settled(approval);
    this.options.logger.info(
      { approvalId: id, decision, tool: approval.toolName, agent: approval.agent, instanceKey: approval.instanceKey },
      "approval decided",
    );
    this.options.publish([decidedEvent(approval, clock.now())]);
    const reopened = decided.reopened;
    if (reopened !== undefined && !this.closed) {
      keepReplyRoute(reopened.event, this.options.pending, clock.now());
      this.options.instance(approval.agent, approval.instanceKey).approvalsDecided({
        event: reopened.event,
        crashes: reopened.crashes,
        deliveries: reopened.crashes,
        acceptedAt: reopened.acceptedAt,
        ...(reopened.approvals === undefined ? {} : { approvals: reopened.approvals }),
      });
    }
    return { type: "decided", approval, ...(reopened !== undefined && outcome !== undefined ? { outcome } : {}) };
  }

  private settled(approval: Approval): void {
    this.deadlines.clear(approval.id);
    if (heldForCluster(approval)) this.options.signals?.settled(approval);
  }
}

/** A call another node may decide: one waiting for a signal, or for a person (a timer's deadline is its owner's). */
const heldForCluster = (approval: Approval) => awaitedSignal(approval) !== undefined || !isSuspension(approval);
