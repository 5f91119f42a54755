/**
 * TurnProgress: what a running turn tells whoever waits on the event that started it, while it runs: one record per
 * tool call starting and ending, of that turn and of every turn it delegated to (they share its traceId), derived
 * by the orchestrator from the runtime events the children send (`toolProgressOf`); the text of the event's own turn
 * as its model streams it (`delta`: the child's `turn_delta`, and `delta` on the wire too); and `restarted` when what
 * was streamed so far is void (the model call was retried, or the child crashed and the event was delivered again:
 * the text starts over).
 * The orchestrator relays them to a submitter that asked (`onProgress`), and a connector child that asked receives
 * them as `connector_progress`; everything on the way passes records through.
 */
import type { JsonValue } from "../shared/json.ts";
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
  /** The call's arguments (from `tool.called`, redacted and bounded by the child: public-runtime-event.ts). */
  args?: JsonValue;
  /** Once ended: the result the model reads (`{status, output}` or `{status, error}`), redacted and bounded. */
  result?: JsonValue;
}

/** Text of the event's own turn, as its model streams it (Model `options.stream: true`). */
export interface DeltaProgress {
  kind: "delta";
  agent: string;
  instanceKey: string;
  traceId: string;
  eventId: string;
  text: string;
}

/** What was streamed so far is void and the text starts over: the model call was retried, or the event redelivered after a crash. */
export interface RestartedProgress {
  kind: "restarted";
  agent: string;
  instanceKey: string;
  traceId: string;
  eventId: string;
  reason: "retry" | "redelivered";
}

export type TurnProgress = ToolProgress | DeltaProgress | RestartedProgress;

/** Whether a record is about the event's own turn only (text, restarts), not its whole trace. */
export const isOwnTurnProgress = (progress: TurnProgress): progress is DeltaProgress | RestartedProgress =>
  progress.kind !== "tool";

/** The progress record of a `tool.*` runtime event (started with its args, or ended with status, code, duration and result); else undefined. */
export function toolProgressOf(event: RuntimeEvent): ToolProgress | undefined {
  if (event.type !== "tool.called" && event.type !== "tool.completed" && event.type !== "tool.failed") return undefined;
  if (event.turnId === undefined || event.toolName === undefined || event.toolCallId === undefined) return undefined;
  const base = {
    kind: "tool" as const,
    agent: event.agent,
    instanceKey: event.instanceKey,
    traceId: event.traceId,
    turnId: event.turnId,
    name: event.toolName,
    toolCallId: event.toolCallId,
  };
  if (event.type === "tool.called")
    return { ...base, phase: "started", ...(event.data?.args === undefined ? {} : { args: event.data.args }) };
  return {
    ...base,
    phase: "ended",
    ...(event.data?.result === undefined ? {} : { result: event.data.result }),
    status: event.type === "tool.failed" ? "error" : "ok",
    ...(event.error === undefined ? {} : { code: event.error.code }),
    ...(event.durationMs === undefined ? {} : { durationMs: event.durationMs }),
  };
}
