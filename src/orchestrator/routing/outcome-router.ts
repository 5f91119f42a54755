/**
 * Where the end of a turn goes: the `submit()` waiters of its event (by eventId), once its commit is durable, and,
 * for a request, the requesting instance, as a Reply matched by correlationId — on an ordered store (Store.ordered:
 * whatever the requester does with it commits after it) just before the turn's commit, made at once behind it (a
 * refused commit keeps the requester's turn from being stored: replies.ts), else once durable too. A reply to an
 * async request is stored as a pending result of the requester before it is handed over (it is shown at its next
 * step, even across restarts); a blocking one goes to the turn waiting for it. An event given up (poison, or an
 * instance that cannot start) is answered E_AGENT_CRASHED; a
 * request whose deadline passed is withdrawn from the callee's queue when not yet delivered and answered
 * E_AGENT_REQUEST_TIMEOUT; both answers are stored, so a requester that reattaches later gets them, and a late reply
 * is dropped. A turn that stopped for approvals (`awaiting_approval`) answers its waiters but routes no reply.
 */
import type { Logger } from "../../shared/logger.ts";
import { instanceAddress } from "../../protocol/agent-event.ts";
import type { ErrorInfo } from "../../protocol/error-info.ts";
import { failedOutcome, type Reply, type TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { InstanceRef, Store } from "../../store/store.ts";
import type { StoredWrite } from "../../store/stored-write.ts";
import { isStoreUnavailable } from "../../store/store-fault.ts";
import { describe } from "../../shared/errors.ts";
import type { InboxEntry } from "../instances/instance-queue.ts";
import type { EventPlacement } from "./event-placement.ts";
import type { PendingRequest, PendingRequests } from "./pending-requests.ts";
import { replyForOutcome, timeoutReply, type OutcomeWaiters } from "./turn-outcomes.ts";

interface Instance {
  agent: string;
  instanceKey: string;
  address: string;
}

/** The instance a reply goes to (Instance: replies.ts). */
export interface Requester {
  ref: InstanceRef;
  /** True when a running turn took it. */
  deliverReply(reply: Reply, options: { blocking: boolean }): boolean;
  /** The commit of the turn that answered a blocking reply it took was refused: its turn must not be stored. */
  replyRefused(): void;
}

export interface OutcomeRouterOptions {
  waiters: OutcomeWaiters;
  pending: PendingRequests;
  store: Store;
  /** The Swarm's instanceKey. */
  swarm: () => string;
  logger: Logger;
  /** The requesting instance by address, created when it has no supervisor (an async reply starts it). */
  requester(address: string): Requester;
  /** The callee instance by address, when it has a supervisor. */
  callee(address: string): { withdraw(eventId: string): InboxEntry | undefined } | undefined;
  /** A turn stopped for approvals, durably: its waiters (and those up its request chain) are told; no reply is routed. */
  turnStopped(event: InboxEntry["event"], outcome: TurnOutcome): void;
  /** Cluster mode: answers of events accepted on other nodes go back there. Default: none (one host). */
  placement?: Pick<EventPlacement, "from" | "answered">;
}

export class OutcomeRouter {
  constructor(private readonly options: OutcomeRouterOptions) {}

  /** Turn results whose commit is not durable yet: a shutdown waits for them before it answers the rest. */
  private readonly committing = new Set<Promise<void>>();

  /** Resolves once every turn result handed over so far is durable (or refused) and routed. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.committing]);
  }

  /**
   * A turn ended: its commit (with its answer) is made, stored once `write.committed` resolves and durable once
   * `write.durable` does (a refusal leaves it unanswered, and nothing is routed or settled).
   */
  turnEnded(instance: Instance, entry: InboxEntry, result: TurnOutcome, write: StoredWrite): void {
    const { durable } = write;
    const tracked = durable.then(
      () => undefined,
      () => undefined,
    );
    this.committing.add(tracked);
    void tracked.then(() => this.committing.delete(tracked));
    const outcome: TurnOutcome = {
      status: result.status,
      agent: instance.agent,
      instanceKey: instance.instanceKey,
      eventId: entry.event.id,
      turnId: result.turnId,
      response: result.response,
      finishReason: result.finishReason,
      ...(result.error ? { error: result.error } : {}),
      ...(result.approvalIds ? { approvalIds: result.approvalIds } : {}),
      ...(result.usage ? { usage: result.usage } : {}),
    };
    if (outcome.status === "awaiting_approval") {
      // Not an answer yet: the requester keeps waiting; the turn goes on under this event once it is decided.
      durable.then(
        () => this.options.turnStopped(entry.event, outcome),
        () => undefined,
      );
      return;
    }
    const placement = this.options.placement;
    const here = placement === undefined || !placement.from(entry.event);
    if (this.options.store.ordered && here) {
      // Handed on now, before the commit its caller makes right after (on-child-message.ts: commitNow), so the hop
      // does not wait for it; nothing the requester says is heard before that commit. Refused, its turn is not stored.
      const took = this.route(entry.event, outcome);
      if (took) write.committed.catch(() => took.replyRefused());
    }
    durable.then(
      () => {
        this.options.waiters.settle(outcome);
        if (!this.options.store.ordered && here) this.route(entry.event, outcome);
        placement?.answered(entry.event, outcome);
      },
      () => undefined,
    );
  }

  /** The event left the queue unanswered: it crashed the instance too often, or (`cause`) the instance cannot start. */
  givenUp(instance: Instance, entry: InboxEntry, cause?: ErrorInfo): void {
    const context = {
      agent: instance.agent,
      instanceKey: instance.instanceKey,
      eventId: entry.event.id,
      crashes: entry.crashes,
      cause,
    };
    this.options.logger.error(
      context,
      cause ? "instance cannot start; event given up" : "event crashed the instance too often; given up",
    );
    const last = entry.lastCrash === undefined ? "" : ` (last time ${entry.lastCrash})`;
    const message = cause
      ? `${cause.message}; the event was dropped`
      : `${instance.address} crashed ${entry.crashes} times while handling this event${last}; it was dropped`;
    this.answer(
      entry.event,
      failedOutcome({
        agent: instance.agent,
        instanceKey: instance.instanceKey,
        eventId: entry.event.id,
        error: { code: "E_AGENT_CRASHED", message },
      }),
    );
  }

  /** A resource limit ended the instance's child during the event's turn: the event is answered with the limit's error. */
  limitExceeded(instance: Instance, entry: InboxEntry, error: ErrorInfo): void {
    this.answer(
      entry.event,
      failedOutcome({ agent: instance.agent, instanceKey: instance.instanceKey, eventId: entry.event.id, error }),
    );
  }

  requestTimedOut(request: PendingRequest): void {
    const withdrawn = this.options
      .callee(instanceAddress(request.agent, request.instanceKey))
      ?.withdraw(request.eventId);
    this.options.logger.warn(
      { correlationId: request.correlationId, requester: request.requester, started: withdrawn === undefined },
      "request timed out",
    );
    const reply = timeoutReply(request);
    if (withdrawn) {
      const { correlationId: _correlationId, ...outcome } = reply;
      void this.storeAnswer(request.eventId, outcome);
    }
    this.deliver(request, reply);
  }

  /** A reply for a request that was answered before (a reattached request): delivered from its stored outcome. */
  replyFromStore(request: PendingRequest, outcome: TurnOutcome): void {
    this.deliver(request, replyForOutcome(request, outcome));
  }

  /** Answers an event without a turn: stored first, then settled like a turn's end. */
  private answer(event: InboxEntry["event"], outcome: TurnOutcome): void {
    this.storeAnswer(event.id, outcome).then(
      () => this.settle(event, outcome),
      () => undefined,
    );
  }

  /**
   * Stores an answer without a turn. A store that cannot write now (a full disk) is tried again, 1 s and doubling up
   * to 30 s, until it can: an event taken out of its queue must not stay unanswered until a restart.
   */
  private async storeAnswer(eventId: string, outcome: TurnOutcome): Promise<void> {
    for (let delayMs = 1000; ; delayMs = Math.min(delayMs * 2, 30_000)) {
      try {
        return await this.options.store.answer(this.options.swarm(), eventId, outcome);
      } catch (error) {
        const retry = isStoreUnavailable(error);
        this.options.logger.error(
          {
            eventId,
            code: describe(error).code,
            error: describe(error).message,
            retryInMs: retry ? delayMs : undefined,
          },
          retry ? "could not store an answer; trying again" : "could not store an answer; the event stays unanswered",
        );
        if (!retry) throw error;
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref?.());
      }
    }
  }

  private settle(event: InboxEntry["event"], outcome: TurnOutcome): void {
    const placement = this.options.placement;
    this.options.waiters.settle(outcome);
    if (placement === undefined || !placement.from(event)) this.route(event, outcome);
    placement?.answered(event, outcome);
  }

  /** Cluster mode: the answer of an event accepted here and run on another node came back. */
  answeredElsewhere(event: InboxEntry["event"], outcome: TurnOutcome): void {
    this.options.waiters.settle(outcome);
    this.route(event, outcome);
  }

  /** A request's answer to its requester (none for other events); the requester when a running turn took it. */
  private route(event: InboxEntry["event"], outcome: TurnOutcome): Requester | undefined {
    const replyTo = event.replyTo;
    if (!replyTo) return;
    const route = { requester: replyTo.target, correlationId: replyTo.correlationId };
    const request = this.options.pending.take(route);
    if (!request) {
      const why = this.options.pending.wasExpired(route)
        ? "late reply after the request timed out; dropped"
        : "reply to an unknown request; kept in the store for its requester to reattach";
      this.options.logger.warn({ correlationId: replyTo.correlationId, eventId: event.id }, why);
      return undefined;
    }
    return this.deliver(request, replyForOutcome(request, outcome));
  }

  /**
   * An async reply is stored for the requester before it is handed over; a blocking one goes to the waiting turn
   * (the requester is returned when that turn took it).
   */
  private deliver(request: PendingRequest, answer: Reply): Requester | undefined {
    const requester = this.options.requester(request.requester);
    const blocking = request.blocking === true;
    if (blocking) return requester.deliverReply(answer, { blocking }) ? requester : undefined;
    const reply: Reply = { ...answer, async: true };
    this.options.store.addPendingResult(requester.ref, reply, { sync: false }).then(
      () => requester.deliverReply(reply, { blocking }),
      (error: unknown) =>
        this.options.logger.error(
          { correlationId: reply.correlationId, error: error instanceof Error ? error.message : String(error) },
          "could not store an async reply",
        ),
    );
    return undefined;
  }
}
