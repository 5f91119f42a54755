/**
 * TurnProgress: what a running turn tells whoever waits on the event that started it, while it runs. Today one
 * record per tool call starting and ending, of that turn and of every turn it delegated to (they share its
 * traceId). The agent child sends it (`turn_progress`), the orchestrator relays it to a submitter that asked
 * (`onProgress`), and a connector child that asked receives it as `connector_progress`. Token streaming extends
 * this union with text deltas; everything on the way passes records through without looking inside.
 */

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
