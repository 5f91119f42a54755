/**
 * TurnProgress: what a running turn tells whoever waits on the event that started it, while it runs. Today one
 * record per tool call starting and ending, of that turn and of every turn it delegated to (they share its
 * traceId): the orchestrator derives them from the runtime events the children send (`toolProgressOf`), relays them
 * to a submitter that asked (`onProgress`), and a connector child that asked receives them as `connector_progress`.
 * Token streaming extends this union with text deltas; everything on the way passes records through.
 */
import type { RuntimeEvent } from "./runtime-event.ts";

export interface ToolProgress {
  kind: "tool";
  phase: "started" | "ended";
  /** The agent instance that runs the tool (the entry agent, or one it delegated to). */
  agent: string;
  instanceKey: string;
  traceId: string;
  turnId: string;
  /** The tool's name as the model called it (`agents__request`). */
  name: string;
  toolCallId: string;
  /** Once ended: `error` for an error result, else `ok`. */
  status?: "ok" | "error";
  /** Once ended with an error: its code. */
  code?: string;
  durationMs?: number;
}

export type TurnProgress = ToolProgress;

/** The progress record of a `tool.*` runtime event (started, or ended with status, code and duration); else undefined. */
export function toolProgressOf(event: RuntimeEvent): ToolProgress | undefined {
  if (event.type !== "tool.called" && event.type !== "tool.completed" && event.type !== "tool.failed") return undefined;
  if (event.turnId === undefined || event.toolName === undefined || event.toolCallId === undefined) return undefined;
  const base = { kind: "tool" as const, agent: event.agent, instanceKey: event.instanceKey, traceId: event.traceId, turnId: event.turnId, name: event.toolName, toolCallId: event.toolCallId };
  if (event.type === "tool.called") return { ...base, phase: "started" };
  return {
    ...base,
    phase: "ended",
    status: event.type === "tool.failed" ? "error" : "ok",
    ...(event.error === undefined ? {} : { code: event.error.code }),
    ...(event.durationMs === undefined ? {} : { durationMs: event.durationMs }),
  };
}
