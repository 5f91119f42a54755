/**
 * How a turn's progress reads on the wire of `POST /v1/events` with `"stream": true`: `delta` `{text}` for streamed
 * text, `tool` `{phase, agent, instanceKey, name, callId, args?, status?, code?, durationMs?, result?}` for each tool
 * call of the turn and of the turns it delegated to (`args` when it starts; `status` `ok`/`error`, `durationMs` and
 * `result` when it ends; args and result redacted of the agent's secrets and bounded to 4 KiB of JSON, a longer one
 * being `{truncated: true, bytes, preview}`: public-runtime-event.ts), and `restarted` `{reason}` when the text so
 * far is void (a retried model call, or the event delivered again after a crash) and starts over. `turnMessage`
 * writes a message of `POST /v1/events`' resumable stream (turn-projection.ts) in this shape; `progressRelay` holds
 * what comes before the stream opens (a turn may start before its answer's headers are out) and relays the rest as
 * it comes: `POST /v1/approvals/:id` streams through it.
 */
import type { EventStreamMessages } from "../protocol/api-wire.ts";
import type { TurnProgress } from "../protocol/turn-progress.ts";
import type { SseWriter } from "./sse-stream.ts";
import type { TurnMessage } from "./turn-projection.ts";

export function progressMessage(
  progress: TurnProgress,
): { [Name in "delta" | "restarted" | "tool"]: { event: Name; data: EventStreamMessages[Name] } }[
  | "delta"
  | "restarted"
  | "tool"] {
  switch (progress.kind) {
    case "delta":
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
          callId: progress.toolCallId,
          ...(progress.args === undefined ? {} : { args: progress.args }),
          ...(progress.status === undefined ? {} : { status: progress.status }),
          ...(progress.code === undefined ? {} : { code: progress.code }),
          ...(progress.durationMs === undefined ? {} : { durationMs: progress.durationMs }),
          ...(progress.result === undefined ? {} : { result: progress.result }),
        },
      };
  }
}

/** A message of a resumable turn stream (turn-projection.ts) as it reads on the wire. */
export function turnMessage(message: TurnMessage): ReturnType<typeof progressMessage> {
  if (message.kind === "tool") return progressMessage(message.progress);
  if (message.kind === "delta") return { event: "delta", data: { text: message.text } };
  return { event: "restarted", data: { reason: message.reason } };
}

/** An `onProgress` to hand the orchestrator before the stream exists, and `attach` once it does. */
export function progressRelay(): { onProgress(progress: TurnProgress): void; attach(writer: SseWriter): void } {
  const early: TurnProgress[] = [];
  let target: SseWriter | undefined;
  return {
    onProgress: (progress) => (target ? target.send(progressMessage(progress)) : early.push(progress)),
    attach: (writer) => {
      target = writer;
      for (const progress of early.splice(0)) writer.send(progressMessage(progress));
    },
  };
}
