/**
 * An AG-UI stream taken up again: every event of a run goes out with the id `<key>:<number>` (the key is the run's
 * accepted event id; for a run that only answers interrupts, one of its own), and a client that lost the stream posts
 * the same RunAgentInput again with `Last-Event-ID`. Within this orchestrator it gets the events after that id, then
 * the live ones to the last, none twice (sse-replay-log.ts); nothing is sent or decided again. After an orchestrator
 * restart, which forgets the stream, a run keyed by its event gets that event's end from the store: RUN_FINISHED (or
 * RUN_ERROR) alone, once the event has an outcome; the text and tool calls its turn made after the client lost it
 * are not sent again (the outcome's `result` carries the reply). Any other id is `404 E_AG_UI_RUN_NOT_FOUND`.
 */
import { EventEncoder } from "@ag-ui/encoder";
import type { Context } from "hono";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { finalEventState, readEventState } from "../event-final-state.ts";
import { keyedId, type SseReplayLog } from "../sse-replay-log.ts";
import { sseResponse } from "../sse-stream.ts";
import type { AgUiInput } from "./ag-ui-input.ts";
import { AgUiRun } from "./ag-ui-run.ts";

/** The stream a `Last-Event-ID` header names, undefined without one; `400` for one that is not an AG-UI id. */
export function agUiResumeId(header: string | undefined): { key: string; number: number } | undefined {
  if (header === undefined || header === "") return undefined;
  const id = keyedId(header);
  if (id === undefined)
    throw new ApiError({
      status: 400,
      code: "E_API_BAD_REQUEST",
      message: `POST /v1/ag-ui: header Last-Event-ID: expected the id of an event of an AG-UI stream (<key>:<number>), got ${JSON.stringify(header.slice(0, 100))}`,
    });
  return id;
}

export async function resumeAgUiStream(options: {
  c: Context<ApiEnv>;
  backend: ApiBackend;
  log: SseReplayLog;
  input: AgUiInput;
  id: { key: string; number: number };
  heartbeatMs?: number;
}): Promise<Response> {
  const { c, backend, log, input, id } = options;
  const heartbeat = options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs };
  const kept = log.get(id.key);
  if (kept !== undefined) return sseResponse({ c, ...heartbeat, run: (writer) => kept.replay(id.number, writer) });
  const state = await readEventState(backend, id.key);
  if (state === undefined)
    throw new ApiError({
      status: 404,
      code: "E_AG_UI_RUN_NOT_FOUND",
      message: `no AG-UI stream ${JSON.stringify(id.key)} to resume (an orchestrator restart forgets the streams of runs that answered interrupts); start a new run on the thread`,
    });
  const record = log.open(id.key, `${id.key}:`, id.number);
  return sseResponse({
    c,
    ...heartbeat,
    run: async (client) => {
      const writer = record.recording(client);
      const encoder = new EventEncoder({ accept: "text/event-stream" });
      const final = await finalEventState({ backend, eventId: id.key, state, closed: client.closed });
      if (final === undefined || final.state === "accepted" || final.state === "running") return;
      const { state: _state, ...outcome } = final;
      await new AgUiRun({
        backend,
        threadId: input.threadId,
        runId: input.runId,
        emit: (event) => writer.sendRaw(encoder.encodeSSE(event)),
      }).end(outcome as TurnOutcome);
      record.end();
    },
  });
}
