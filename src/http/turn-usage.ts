/**
 * The tokens an event cost the swarm: the usage of its own turn and of every turn it delegated to (they share its
 * trace), read from the `turn.completed` / `turn.failed` runtime events the backend hands its watchers. A child sends
 * a turn's runtime events before its outcome, so they are in by the time the outcome settles. `POST /v1/events` puts
 * it on its answer and its stream's `done`; the OpenAI surface reads it as `usage` (chat-answer.ts).
 */
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import type { ApiBackend } from "./api-backend.ts";

/** Tokens in the shape a turn's outcome reports them. */
export type TokenUsage = NonNullable<TurnOutcome["usage"]>;

export interface UsageWatch {
  /** The usage so far of the event's trace (zeros when none was reported). */
  usageOf(eventId: string): TokenUsage;
  stop(): void;
}

const isTurnEnd = (event: RuntimeEvent) => event.type === "turn.completed" || event.type === "turn.failed";

/** Starts collecting turn ends; call before submitting, so no turn of the event is missed. */
export function watchUsage(backend: ApiBackend): UsageWatch {
  const ends: RuntimeEvent[] = [];
  const stop = backend.orchestrator.onRuntimeEvents((rows) => {
    for (const { event } of rows) if (isTurnEnd(event)) ends.push(event);
  });
  return {
    usageOf: (eventId) => {
      const traces = new Set(ends.filter((event) => event.eventId === eventId).map((event) => event.traceId));
      let inputTokens = 0;
      let outputTokens = 0;
      for (const event of ends) {
        if (!traces.has(event.traceId) || event.usage === undefined) continue;
        inputTokens += event.usage.inputTokens;
        outputTokens += event.usage.outputTokens;
      }
      return { inputTokens, outputTokens };
    },
    stop,
  };
}
