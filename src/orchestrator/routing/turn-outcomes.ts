/**
 * What a finished turn means to whoever waits on it: the TurnOutcome type, the in-memory waiters of
 * `submit()` callers (by eventId), and the `delegate_result` a requesting instance receives for a
 * callee's outcome (`E_AGENT_TURN_FAILED` for a failed turn, `E_AGENT_CRASHED` passed through) or for a
 * request whose deadline passed (`E_AGENT_REQUEST_TIMEOUT`).
 */
import { failedOutcome, type Reply, type TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { PendingRequest } from "./pending-requests.ts";

/** The reply a requester gets for its callee's outcome: a failed turn reads E_AGENT_TURN_FAILED (E_AGENT_CRASHED as is). */
export function replyForOutcome(request: PendingRequest, outcome: TurnOutcome): Reply {
  const reply: Reply = { ...outcome, correlationId: request.correlationId };
  if (outcome.status === "error" && outcome.error?.code !== "E_AGENT_CRASHED") {
    reply.error = {
      code: "E_AGENT_TURN_FAILED",
      message: `${outcome.agent} turn failed: ${outcome.error?.code ?? "error"}: ${outcome.error?.message ?? outcome.response}`,
    };
  }
  return reply;
}

export function timeoutReply(request: PendingRequest): Reply {
  const error = {
    code: "E_AGENT_REQUEST_TIMEOUT",
    message: `${request.agent}/${request.instanceKey} did not answer before the deadline`,
  };
  return {
    ...failedOutcome({ agent: request.agent, instanceKey: request.instanceKey, eventId: request.eventId, error }),
    correlationId: request.correlationId,
  };
}

/** The outcome waiters get when the orchestrator stops before the turn ended (the event stays accepted). */
export function stoppedOutcome(eventId: string): TurnOutcome {
  const error = {
    code: "E_ORCHESTRATOR_STOPPED",
    message: "the orchestrator stopped before the turn ended; the event stays in the inbox",
  };
  return failedOutcome({ agent: "", instanceKey: "", eventId, error });
}

/** Waiters by eventId: `outcome` settles with the TurnOutcome, `ended` just when the turn is over. */
export class OutcomeWaiters {
  private readonly outcomes = new Map<string, ((outcome: TurnOutcome) => void)[]>();

  outcome(eventId: string): Promise<TurnOutcome> {
    return new Promise((resolve) => {
      const list = this.outcomes.get(eventId) ?? [];
      list.push(resolve);
      this.outcomes.set(eventId, list);
    });
  }

  ended(eventId: string): Promise<void> {
    return this.outcome(eventId).then(() => undefined);
  }

  settle(outcome: TurnOutcome): void {
    const list = this.outcomes.get(outcome.eventId);
    this.outcomes.delete(outcome.eventId);
    for (const resolve of list ?? []) resolve(outcome);
  }

  forget(eventId: string): void {
    this.outcomes.delete(eventId);
  }

  /** Settles every waiter with an error outcome (the orchestrator stopped first). */
  settleAll(outcomeFor: (eventId: string) => TurnOutcome): void {
    for (const eventId of [...this.outcomes.keys()]) this.settle(outcomeFor(eventId));
  }
}
