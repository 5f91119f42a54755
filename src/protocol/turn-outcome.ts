/**
 * TurnOutcome: the one shape of a finished turn, from the agent child that ran it to whoever waits — the
 * orchestrator's `submit()` callers, the HTTP API's `wait: true` answer, a connector's `request`, and (as a Reply,
 * with the correlationId the requester chose) the instance that asked for it with `agents__request`.
 */
import type { ErrorInfo } from "./error-info.ts";

export interface TurnOutcome {
  /**
   * `awaiting_approval`: the turn stopped at a tool call a person must approve (`approvalIds`); it is not over,
   * and continues under the same event once every approval is decided. Waiters get this as their final answer.
   */
  status: "ok" | "error" | "awaiting_approval";
  agent: string;
  instanceKey: string;
  eventId: string;
  /** Empty when no turn ran (the event was given up, timed out or the orchestrator stopped first). */
  turnId: string;
  /** The final assistant text (the last text on `max_steps`); may be empty on error. */
  response: string;
  /** `stop`, `max_steps`, `error`, `nothing_pending`, … */
  finishReason: string;
  error?: ErrorInfo;
  /** With `awaiting_approval`: the approvals the turn waits for (GET/POST /v1/approvals/:id). */
  approvalIds?: string[];
  /** The tokens the turn's own model calls used (not those of turns it delegated to); absent when no turn ran. */
  usage?: { inputTokens: number; outputTokens: number };
}

/** A turn's outcome as the instance that requested it receives it, matched by the correlationId it chose. */
export interface Reply extends TurnOutcome {
  correlationId: string;
  /** A reply to an async request: the requester keeps it as a pending result. Absent: a blocking call waits for it. */
  async?: true;
}

/** An error outcome for an event that got no turn (given up, stopped, timed out). */
export function failedOutcome(options: {
  agent: string;
  instanceKey: string;
  eventId: string;
  error: ErrorInfo;
}): TurnOutcome {
  return {
    status: "error",
    agent: options.agent,
    instanceKey: options.instanceKey,
    eventId: options.eventId,
    turnId: "",
    response: "",
    finishReason: "error",
    error: options.error,
  };
}

/** An error Reply for a request that got no turn (timed out, refused, the channel was lost). */
export function failedReply(options: {
  correlationId: string;
  agent: string;
  instanceKey: string;
  eventId?: string;
  error: ErrorInfo;
}): Reply {
  return {
    ...failedOutcome({
      agent: options.agent,
      instanceKey: options.instanceKey,
      eventId: options.eventId ?? "",
      error: options.error,
    }),
    correlationId: options.correlationId,
  };
}
