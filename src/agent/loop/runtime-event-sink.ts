/**
 * Where the loop and the extensions' failure reports put runtime events (`turn.started`, `tool.called`,
 * `extension.failed`, …). The instance implements it over its link to the orchestrator
 * (instance/linked-runtime-events.ts); tests keep the events in memory.
 */
import type { RuntimeEventInput } from "../../protocol/runtime-event.ts";

export interface RuntimeEventSink {
  emit(event: RuntimeEventInput): void;
}

/** A sink that keeps events in memory (tests). */
export class MemoryRuntimeEvents implements RuntimeEventSink {
  readonly events: RuntimeEventInput[] = [];
  emit(event: RuntimeEventInput): void {
    this.events.push(event);
  }
}
