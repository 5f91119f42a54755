/**
 * The event that wakes an idle instance whose child holds results its model has not seen (replies to its
 * async requests, completions of its pending tool calls; the child says `results_waiting`). Its turn adds
 * no user message and answers nobody; it is not fdatasynced, because the results themselves are durable in
 * the child's state and a restarted child asks again.
 */
import { newTraceId } from "../../shared/ids.ts";
import { RESULTS_ARRIVED_EVENT, type AgentEvent } from "../../protocol/agent-event.ts";

export function resultsArrivedEvent(options: { id: string; agent: string; instanceKey: string; count: number; now: number }): AgentEvent {
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
