/**
 * Where the end of a turn goes: the `submit()` waiters of its event (by eventId) and, for a request, the
 * requesting instance, as a `delegate_result` matched by correlationId (held until that instance is ready).
 * An event given up (poison, or an instance that cannot start) ends as AGENT_CRASHED; a request whose
 * deadline passed is withdrawn from the callee's queue when not yet delivered and answered
 * AGENT_REQUEST_TIMEOUT, and its late reply is dropped.
 */
import type { Logger } from "../../shared/logger.ts";
import { instanceAddress } from "../../protocol/agent-event.ts";
import type { ErrorInfo } from "../../protocol/error-info.ts";
import { failedOutcome, type Reply, type TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { InboxEntry } from "../instances/durable-inbox.ts";
import type { PendingRequest, PendingRequests } from "./pending-requests.ts";
import { replyForOutcome, timeoutReply, type OutcomeWaiters } from "./turn-outcomes.ts";

interface Instance {
  agent: string;
  instanceKey: string;
  address: string;
}

export interface OutcomeRouterOptions {
  waiters: OutcomeWaiters;
  pending: PendingRequests;
  logger: Logger;
  /** The requesting instance by address, created when it has no supervisor (its reply waits for its next child). */
  requester(address: string): { deliverReply(reply: Reply, options: { deadline: number; blocking: boolean }): void };
  /** The callee instance by address, when it has a supervisor. */
  callee(address: string): { withdraw(eventId: string): InboxEntry | undefined } | undefined;
}

export class OutcomeRouter {
  constructor(private readonly options: OutcomeRouterOptions) {}

  turnEnded(instance: Instance, entry: InboxEntry, result: TurnOutcome): void {
    this.settle(entry, {
      status: result.status,
      agent: instance.agent,
      instanceKey: instance.instanceKey,
      eventId: entry.event.id,
      turnId: result.turnId,
      response: result.response,
      finishReason: result.finishReason,
      ...(result.error ? { error: result.error } : {}),
    });
  }

  /** The event left the inbox unanswered: it crashed the instance too often, or (`cause`) the instance cannot start. */
  givenUp(instance: Instance, entry: InboxEntry, cause?: ErrorInfo): void {
    const context = { agent: instance.agent, instanceKey: instance.instanceKey, eventId: entry.event.id, crashes: entry.crashes, cause };
    this.options.logger.error(context, cause ? "instance cannot start; event given up" : "event crashed the instance too often; given up");
    const last = entry.lastCrash === undefined ? "" : ` (last time ${entry.lastCrash})`;
    const message = cause ? `${cause.message}; the event was dropped` : `${instance.address} crashed ${entry.crashes} times while handling this event${last}; it was dropped`;
    this.settle(entry, failedOutcome({ agent: instance.agent, instanceKey: instance.instanceKey, eventId: entry.event.id, error: { code: "AGENT_CRASHED", message } }));
  }

  requestTimedOut(request: PendingRequest): void {
    const withdrawn = this.options.callee(instanceAddress(request.agent, request.instanceKey))?.withdraw(request.eventId);
    this.options.logger.warn({ correlationId: request.correlationId, requester: request.requester, started: withdrawn === undefined }, "request timed out");
    this.options.requester(request.requester).deliverReply(timeoutReply(request), { deadline: Number.POSITIVE_INFINITY, blocking: request.blocking === true });
  }

  private settle(entry: InboxEntry, outcome: TurnOutcome): void {
    this.options.waiters.settle(outcome);
    const replyTo = entry.event.replyTo;
    if (!replyTo) return;
    const route = { requester: replyTo.target, correlationId: replyTo.correlationId };
    const request = this.options.pending.take(route);
    if (!request) {
      const why = this.options.pending.wasExpired(route) ? "late reply after the request timed out; dropped" : "reply to an unknown request; dropped";
      this.options.logger.warn({ correlationId: replyTo.correlationId, eventId: entry.event.id }, why);
      return;
    }
    this.options.requester(request.requester).deliverReply(replyForOutcome(request, outcome), { deadline: request.deadline, blocking: request.blocking === true });
  }
}
