/**
 * Runtime events: the observability record of what an agent instance did (`turn.started/completed/failed`,
 * `step.*`, `tool.*`, `model.completed/failed/retried`, `conversation.recovered`, `approval.requested/decided`), each with its trace context (`traceId`, `spanId`,
 * `parentSpanId`), durations and token usage where they apply. Agent children send them to the orchestrator, which
 * stores them (queryable by agent, instance, turn and trace) and streams them to watchers.
 */
import type { JsonObject } from "../shared/json.ts";
import type { ErrorInfo } from "./error-info.ts";

export type RuntimeEventType =
  | "turn.started"
  | "turn.completed"
  | "turn.failed"
  | "step.started"
  | "step.completed"
  | "step.failed"
  | "tool.called"
  | "tool.completed"
  | "tool.failed"
  | "conversation.recovered"
  | "model.completed"
  | "model.failed"
  | "model.retried"
  | "extension.failed"
  | "approval.requested"
  | "approval.decided";

export interface RuntimeEvent {
  type: RuntimeEventType;
  at: string;
  agent: string;
  instanceKey: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  turnId?: string;
  eventId?: string;
  stepIndex?: number;
  toolName?: string;
  toolCallId?: string;
  durationMs?: number;
  usage?: { inputTokens: number; outputTokens: number };
  error?: ErrorInfo;
  data?: JsonObject;
}

/** A runtime event as its emitter gives it: the stamp (`at`) and the instance are added by the sink. */
export type RuntimeEventInput = Omit<RuntimeEvent, "at" | "agent" | "instanceKey">;
