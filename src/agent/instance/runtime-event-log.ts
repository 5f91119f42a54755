/**
 * `runtime-events.jsonl`: the append-only observability log of an instance (`turn.started/completed/failed`,
 * `step.*`, `tool.*`, `conversation.recovered`, `extension.failed`), each with traceId, spanId, parentSpanId, durations and token
 * usage where they apply. Lines are appended without fsync: losing the last few on a crash costs no correctness.
 */
import type { JsonObject } from "../../shared/json.ts";
import { JsonlAppender } from "../conversation/jsonl-file.ts";

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
  | "model.retried"
  | "extension.failed";

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
  error?: { code: string; message: string };
  data?: JsonObject;
}

export interface RuntimeEventSink {
  emit(event: Omit<RuntimeEvent, "at" | "agent" | "instanceKey">): void;
}

export class RuntimeEventLog implements RuntimeEventSink {
  private readonly appender: JsonlAppender;

  constructor(
    file: string,
    private readonly identity: { agent: string; instanceKey: string },
    private readonly now: () => number = Date.now,
  ) {
    this.appender = new JsonlAppender(file, { fsync: false });
  }

  emit(event: Omit<RuntimeEvent, "at" | "agent" | "instanceKey">): void {
    this.appender.append({ at: new Date(this.now()).toISOString(), ...this.identity, ...event });
  }

  close(): void {
    this.appender.close();
  }
}

/** A sink that keeps events in memory (tests). */
export class MemoryRuntimeEvents implements RuntimeEventSink {
  readonly events: Omit<RuntimeEvent, "at" | "agent" | "instanceKey">[] = [];
  emit(event: Omit<RuntimeEvent, "at" | "agent" | "instanceKey">): void {
    this.events.push(event);
  }
}
