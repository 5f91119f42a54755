/**
 * The tokens an event cost the swarm: the usage of its own turn and of every turn it delegated to (they share its
 * trace), read from the `turn.completed` / `turn.failed` runtime events the backend hands its watchers. A child sends
 * a turn's runtime events before its outcome, so they are in by the time the outcome settles.
 */
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import type { ApiBackend } from "../api-backend.ts";

export interface TokenCount {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface UsageWatch {
  /** The usage so far of the event's trace (zeros when none was reported). */
  usageOf(eventId: string): TokenCount;
  stop(): void;
}

const isTurnEnd = (event: RuntimeEvent) => event.type === "turn.completed" || event.type === "turn.failed";

/** Starts collecting turn ends; call before submitting, so no turn of the event is missed. */
export function watchUsage(backend: ApiBackend): UsageWatch {
  const ends: RuntimeEvent[] = [];
  const stop = backend.orchestrator.onRuntimeEvents((events) => {
    for (const event of events) if (isTurnEnd(event)) ends.push(event);
  });
  return {
    usageOf: (eventId) => {
      const traces = new Set(ends.filter((event) => event.eventId === eventId).map((event) => event.traceId));
      let prompt = 0;
      let completion = 0;
      for (const event of ends) {
        if (!traces.has(event.traceId) || event.usage === undefined) continue;
        prompt += event.usage.inputTokens;
        completion += event.usage.outputTokens;
      }
      return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
    },
    stop,
  };
}
