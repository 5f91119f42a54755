/**
 * Sending the answer of an event run here back to the node that accepted it (where its requester or its HTTP caller
 * waits). A node that does not take it at once is not taken for gone: a loaded node may answer after the request's
 * timeout, and a node reconnecting to NATS has no subscription for a moment (NATS says no responders). Giving up then
 * lost the answer — the requester, alive, waited for its deadline and got E_AGENT_REQUEST_TIMEOUT. So the answer is
 * sent again, each pause longer, while that node is still a member of the cluster and the requester's deadline (or
 * `giveUpMs`) has not passed. Only a node that left the membership (dead: its heartbeat lapsed), or time running
 * out, makes it false: the caller then hands the answer to its own node's requests. The receiving node takes the
 * same answer twice harmlessly (the second finds nobody waiting).
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import { errorInfo } from "../../protocol/error-info.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { Logger } from "../../shared/logger.ts";
import type { RequestOutcome } from "../nats/messenger.ts";

export interface AnswerReturnOptions {
  messenger: {
    requestNode(
      node: string,
      kind: "outcome",
      request: { event: AgentEvent; outcome: TurnOutcome },
      options: { timeoutMs: number },
    ): Promise<RequestOutcome<{ settled: true }>>;
  };
  origin: string;
  event: AgentEvent;
  outcome: TurnOutcome;
  /** Whether `node` is a live member of the cluster now (a failure to tell counts as yes). */
  isMember: (node: string) => Promise<boolean>;
  logger: Logger;
  /** Stop trying after this long when the event names no deadline. Default 60000. */
  giveUpMs?: number;
  /** Each attempt waits this long for the node's answer. Default 5000. */
  attemptMs?: number;
}

/** True once the node that accepted the event took its answer; false when it is gone or time ran out. */
export async function sendAnswerBack(options: AnswerReturnOptions): Promise<boolean> {
  const { messenger, origin, event, outcome, logger } = options;
  const giveUpAt = typeof event.deadline === "number" ? event.deadline : Date.now() + (options.giveUpMs ?? 60_000);
  let pauseMs = 200;
  for (let attempt = 1; ; attempt++) {
    const answer = await messenger.requestNode(
      origin,
      "outcome",
      { event, outcome },
      { timeoutMs: options.attemptMs ?? 5000 },
    );
    if (answer.status === "ok") {
      if (attempt > 1)
        logger.info(
          { eventId: event.id, origin, attempt },
          "sent an answer back to the node that accepted the event after retrying",
        );
      return true;
    }
    const error =
      answer.status === "refused" || answer.status === "unavailable"
        ? answer.error
        : errorInfo({ code: answer.status, message: `node ${origin} did not take the answer` });
    const member = await options.isMember(origin).catch(() => true);
    if (!member || Date.now() + pauseMs > giveUpAt) {
      logger.warn(
        { eventId: event.id, origin, status: answer.status, attempt, member, error },
        "could not send an answer back to the node that accepted the event; it stays in this node's store and goes to a requester waiting here",
      );
      return false;
    }
    logger.debug(
      { eventId: event.id, origin, status: answer.status, attempt },
      "the node that accepted the event did not take its answer yet; sending it again",
    );
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    pauseMs = Math.min(pauseMs * 2, 2000);
  }
}
