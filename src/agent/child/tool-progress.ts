/**
 * The progress records a turn's runtime events become for whoever waits on it: `tool.called` is a tool call
 * started, `tool.completed` / `tool.failed` one ended (with its status, code and duration). Every other event
 * stays in the instance's runtime-events.jsonl only.
 */
import type { ToolProgress } from "../../protocol/turn-progress.ts";
import type { RuntimeEvent } from "../instance/runtime-event-log.ts";

export type EmittedRuntimeEvent = Omit<RuntimeEvent, "at" | "agent" | "instanceKey">;

export function toolProgress(options: { event: EmittedRuntimeEvent; agent: string; instanceKey: string }): ToolProgress | undefined {
  const { event, agent, instanceKey } = options;
  if (event.type !== "tool.called" && event.type !== "tool.completed" && event.type !== "tool.failed") return undefined;
  if (event.turnId === undefined || event.toolName === undefined || event.toolCallId === undefined) return undefined;
  const base = { kind: "tool" as const, agent, instanceKey, traceId: event.traceId, turnId: event.turnId, name: event.toolName, toolCallId: event.toolCallId };
  if (event.type === "tool.called") return { ...base, phase: "started" };
  return {
    ...base,
    phase: "ended",
    status: event.type === "tool.failed" ? "error" : "ok",
    ...(event.error === undefined ? {} : { code: event.error.code }),
    ...(event.durationMs === undefined ? {} : { durationMs: event.durationMs }),
  };
}
