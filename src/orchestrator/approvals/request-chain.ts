/**
 * What a turn held for approvals means for the requests around it: the waiters of its event and of every event up
 * its request chain (the turns that wait on it) hear `awaiting_approval` when it stops (`settleChain`), and a
 * request's reply route, rebuilt at start only for unanswered events, is given back to one resumed across a restart
 * when its approvals are decided (`keepReplyRoute`).
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { InboxEntry } from "../instances/instance-queue.ts";
import type { PendingRequests } from "../routing/pending-requests.ts";
import type { OutcomeWaiters } from "../routing/turn-outcomes.ts";

/** How far up a request chain a stopped turn is told. */
const MAX_CHAIN = 32;

/** Gives a resumed request its reply route back (unless its requester reattached already, or its deadline passed). */
export function keepReplyRoute(event: AgentEvent, pending: PendingRequests, now: number): void {
  const replyTo = event.replyTo;
  if (replyTo === undefined || event.deadline === undefined || event.deadline <= now) return;
  if (pending.peek({ requester: replyTo.target, correlationId: replyTo.correlationId }) !== undefined) return;
  pending.add({
    correlationId: replyTo.correlationId,
    requester: replyTo.target,
    agent: event.agent,
    instanceKey: event.instanceKey,
    eventId: event.id,
    deadline: event.deadline,
    blocking: replyTo.async !== true,
  });
}

/** The waiters of the stopped event and of each event up its request chain hear it now. */
export function settleChain(
  event: AgentEvent,
  outcome: TurnOutcome,
  options: {
    waiters: OutcomeWaiters;
    pending: PendingRequests;
    /** A live instance by address. */
    existing(address: string): { agent: string; instanceKey: string; inFlight: InboxEntry | undefined } | undefined;
  },
): void {
  options.waiters.settle(outcome);
  let current = event;
  for (let depth = 0; depth < MAX_CHAIN && current.replyTo !== undefined; depth += 1) {
    const request = options.pending.peek({
      requester: current.replyTo.target,
      correlationId: current.replyTo.correlationId,
    });
    const requester = request === undefined ? undefined : options.existing(request.requester);
    const parent = requester?.inFlight;
    if (requester === undefined || parent === undefined) return;
    options.waiters.settle({
      ...outcome,
      agent: requester.agent,
      instanceKey: requester.instanceKey,
      eventId: parent.event.id,
      turnId: "",
      response: "",
    });
    current = parent.event;
  }
}
