/**
 * How a turn's progress reads on the wire of `POST /v1/events` with `"stream": true`: `delta` `{text}` for streamed
 * text, `tool` `{phase, agent, instanceKey, name, status?}` for each tool call of the turn and of the turns it
 * delegated to, and `restarted` `{reason}` when the text so far is void (a retried model call, or the event
 * delivered again after a crash) and starts over.
 */
import type { TurnProgress } from "../protocol/turn-progress.ts";

export function progressMessage(progress: TurnProgress): { event: string; data: unknown } {
  switch (progress.kind) {
    case "text":
      return { event: "delta", data: { text: progress.text } };
    case "restarted":
      return { event: "restarted", data: { reason: progress.reason } };
    case "tool":
      return {
        event: "tool",
        data: {
          phase: progress.phase,
          agent: progress.agent,
          instanceKey: progress.instanceKey,
          name: progress.name,
          ...(progress.status === undefined ? {} : { status: progress.status }),
        },
      };
  }
}
