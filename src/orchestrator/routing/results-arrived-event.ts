/**
 * The event that wakes an idle instance whose child holds results its model has not seen (replies to its
 * async requests, completions of its pending tool calls; the child says `results_waiting`). Its turn adds
 * no user message and answers nobody; it is not fdatasynced, because the results themselves are durable in
 * the child's state and a restarted child asks again.
 */
import { describe } from "../../shared/errors.ts";
import { newTraceId } from "../../shared/ids.ts";
import type { Logger } from "../../shared/logger.ts";
import { RESULTS_ARRIVED_EVENT, type AgentEvent } from "../../protocol/agent-event.ts";

export function resultsArrivedEvent(options: {
  id: string;
  agent: string;
  instanceKey: string;
  count: number;
  now: number;
}): AgentEvent {
  return {
    id: options.id,
    type: RESULTS_ARRIVED_EVENT,
    input: "",
    agent: options.agent,
    instanceKey: options.instanceKey,
    source: { kind: "system", name: "results-arrived" },
    traceId: newTraceId(),
    callChain: [],
    metadata: { count: options.count },
    createdAt: new Date(options.now).toISOString(),
  };
}

/**
 * Wakes `instance` for results its child holds (`results_waiting`), unless queued or in-flight work will show them
 * anyway or the orchestrator no longer accepts events. A wake that cannot be stored is logged: the child asks again.
 */
export function wakeForResults(options: {
  instance: { agent: string; instanceKey: string; hasWork(): boolean };
  count: number;
  accepting: boolean;
  id: () => string;
  now: number;
  accept: (event: AgentEvent, options: { sync: false }) => Promise<void>;
  logger: Logger;
}): void {
  const { instance } = options;
  if (!options.accepting || instance.hasWork()) return;
  const wake = resultsArrivedEvent({
    id: options.id(),
    agent: instance.agent,
    instanceKey: instance.instanceKey,
    count: options.count,
    now: options.now,
  });
  options
    .accept(wake, { sync: false })
    .catch((error: unknown) =>
      options.logger.warn({ error: describe(error).message }, "could not store a results.arrived event"),
    );
}
