/**
 * Serves one `event` from the orchestrator as one turn of the instance, answered with exactly one `turn_result`.
 * While the turn runs it says `heartbeat` every HEARTBEAT_INTERVAL_MS (proof of a live event loop: a tool stuck in a
 * synchronous loop silences it) and streams the turn's text. A turn whose step the store refused is not answered:
 * the child exits (STORE_FAULT_EXIT_CODE: not a crash of the event), the event stays in the orchestrator's inbox,
 * and the next child starts from what the store holds.
 * Any other throw is a bug of ours, still answered once, as a failed outcome.
 */
import {
  envelope,
  HEARTBEAT_INTERVAL_MS,
  ORCHESTRATOR,
  STORE_FAULT_EXIT_CODE,
  type ChildMessage,
  type ParentToChild,
} from "../../protocol/ipc-messages.ts";
import { failedOutcome } from "../../protocol/turn-outcome.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { AgentInstance } from "../instance/agent-instance.ts";
import { isStoreFailure } from "../loop/next-step.ts";
import type { TurnDeltaSender } from "./turn-delta-sender.ts";

export interface ServeEventOptions {
  instance: AgentInstance;
  payload: ParentToChild["event"];
  /** Aborts the turn (shutdown grace over, orchestrator gone): an aborted turn is not committed. */
  signal: AbortSignal;
  /** `agent/instanceKey` of this child. */
  address: string;
  /** Where the turn's streamed text goes. */
  text: TurnDeltaSender;
  send: (message: ChildMessage) => void;
  /** The turn's `turn_started`, which nothing waits on: the child holds it until its next message. */
  holdTurnStarted: (message: ChildMessage) => void;
  logger: Logger;
  exit: (code: number) => void;
}

export async function serveEvent(options: ServeEventOptions): Promise<void> {
  const { instance, address, text, send, logger } = options;
  const { event, attempt, crashedBefore, redelivery, approvals } = options.payload;
  text.begin(event.id);
  let turnId: string | undefined;
  const heartbeat = setInterval(
    () => send(envelope("heartbeat", address, ORCHESTRATOR, turnId === undefined ? {} : { turnId })),
    HEARTBEAT_INTERVAL_MS,
  );
  try {
    const onTurnStarted = (started: string) => {
      turnId = started;
      options.holdTurnStarted(envelope("turn_started", address, ORCHESTRATOR, { eventId: event.id, turnId: started }));
    };
    const handled = await instance.handleEvent({
      event,
      attempt,
      signal: options.signal,
      onTurnStarted,
      ...(crashedBefore === undefined ? {} : { crashedBefore }),
      ...(redelivery === true ? { redelivery } : {}),
      ...(approvals === undefined ? {} : { approvals }),
    });
    if (handled !== undefined) {
      text.begin(undefined);
      send(envelope("turn_result", address, ORCHESTRATOR, { ...handled.outcome, commit: handled.commit }));
    }
  } catch (error) {
    if (isStoreFailure(error)) {
      // Not answered: the event stays in the orchestrator's inbox, and the next child starts from the store.
      logger.error(
        { err: error, eventId: event.id },
        "the store refused this turn's step; exiting to start again from what it holds",
      );
      options.exit(STORE_FAULT_EXIT_CODE);
      return;
    }
    // Only a bug of ours gets here; still exactly one reply.
    logger.error({ err: error, eventId: event.id }, "turn could not be committed");
    const failure = { code: "E_AGENT_TURN_FAILED", message: describe(error).message };
    send(
      envelope(
        "turn_result",
        address,
        ORCHESTRATOR,
        failedOutcome({ agent: event.agent, instanceKey: event.instanceKey, eventId: event.id, error: failure }),
      ),
    );
  } finally {
    clearInterval(heartbeat);
    text.begin(undefined);
  }
}
