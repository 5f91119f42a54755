/**
 * An AG-UI stream taken up again: every event of a run goes out with the id `<key>:<cursor>.<offset>.<part>` (the
 * key is the event the run streams, its position a stored one: ag-ui-stream.ts), and a client that lost the stream
 * posts the same RunAgentInput again with `Last-Event-ID`; nothing is sent or decided again. Within this
 * orchestrator it gets the events past that id, then the live ones to the last, none twice (sse-replay-log.ts).
 * After an orchestrator restart, which forgets the stream, the same positions are read from the store: the run is
 * rebuilt from its event's trace (silently up to the id, so the messages and calls it had open stay open), then
 * what the client lacks is sent (tool calls, the text of each model call past what it holds, `RUN_FINISHED` or
 * `RUN_ERROR` once the event has an outcome). A turn running again after the restart sends its text per model call.
 * A run whose interrupts were refused before it reached a turn is not kept past a restart:
 * `404 E_AG_UI_RUN_NOT_FOUND`, as for any id naming no event.
 */
import type { Context } from "hono";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import type { EventState } from "../../protocol/api-wire.ts";
import { finalEventState, readEventState } from "../event-final-state.ts";
import type { SseReplayLog } from "../sse-replay-log.ts";
import { formatPosition, keyedPosition, type StreamPosition } from "../stream-position.ts";
import { storedTurn, traceOfEvent } from "../turn-stream.ts";
import { AgUiStreamWriter } from "./ag-ui-stream.ts";
import { sseResponse } from "../sse-stream.ts";
import type { AgUiInput } from "./ag-ui-input.ts";
import { AgUiRun } from "./ag-ui-run.ts";

/** The stream and position a `Last-Event-ID` header names, undefined without one; `400` for one that is not an AG-UI id. */
export function agUiResumeId(header: string | undefined): { key: string; position: StreamPosition } | undefined {
  if (header === undefined || header === "") return undefined;
  const id = keyedPosition(header);
  if (id === undefined)
    throw new ApiError({
      status: 400,
      code: "E_API_BAD_REQUEST",
      message: `POST /v1/ag-ui: header Last-Event-ID: expected the id of an event of an AG-UI stream (<key>:<cursor>.<offset>.<part>), got ${JSON.stringify(header.slice(0, 100))}`,
    });
  return id;
}

/**
 * Where a run that answered interrupts began in its event's trace: after the turn end that held them, the newest
 * such end before the client's position (0 for a run that sent a message: it began with the trace).
 */
async function runStart(options: {
  backend: ApiBackend;
  traceId: string;
  eventId: string;
  input: AgUiInput;
  before: number;
}): Promise<number> {
  if ((options.input.resume ?? []).length === 0) return 0;
  const rows = await options.backend.orchestrator.runtimeEvents({ traceId: options.traceId }).catch(() => []);
  const holds = rows.filter(
    ({ cursor, event }) =>
      cursor <= options.before &&
      event.eventId === options.eventId &&
      event.type === "turn.completed" &&
      event.data?.finishReason === "awaiting_approval",
  );
  return holds.at(-1)?.cursor ?? 0;
}

export async function resumeAgUiStream(options: {
  c: Context<ApiEnv>;
  backend: ApiBackend;
  log: SseReplayLog;
  input: AgUiInput;
  id: { key: string; position: StreamPosition };
  heartbeatMs?: number;
}): Promise<Response> {
  const { c, backend, log, input, id } = options;
  const heartbeat = options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs };
  const kept = log.get(id.key);
  if (kept !== undefined) return sseResponse({ c, ...heartbeat, run: (writer) => kept.replay(id.position, writer) });
  const state = await readEventState(backend, id.key);
  const traceId = state === undefined ? undefined : await traceOfEvent(backend, id.key);
  if (state !== undefined && traceId === undefined) return endOnly({ ...options, heartbeat });
  if (traceId === undefined)
    throw new ApiError({
      status: 404,
      code: "E_AG_UI_RUN_NOT_FOUND",
      message: `no AG-UI stream ${JSON.stringify(id.key)} to resume; start a new run on the thread`,
    });
  const start = await runStart({ backend, traceId, eventId: id.key, input, before: id.position.cursor });
  return sseResponse({
    c,
    ...heartbeat,
    run: async (client) => {
      const out = await AgUiStreamWriter.open({
        start,
        after: id.position,
        send: (chunk, position) => client.sendRaw(`id: ${id.key}:${formatPosition(position)}\n${chunk}`),
      });
      const run = new AgUiRun({ backend, threadId: input.threadId, runId: input.runId, emit: out.emit });
      run.start();
      const { state: final, projection } = await storedTurn({
        backend,
        eventId: id.key,
        traceId,
        start,
        from: id.position,
        emit: async (message, position, silent) => {
          out.moveTo(position, silent);
          await run.take(message);
        },
        closed: client.closed,
      });
      if (final === undefined || final.state === "accepted" || final.state === "running") return;
      const { state: _state, ...outcome } = final as EventState & TurnOutcome;
      out.moveTo(projection.endPosition);
      await run.finish(outcome);
    },
  });
}

/**
 * A run whose event this node's store does not hold (on a cluster node, another node accepted it): its last event
 * alone (RUN_FINISHED or RUN_ERROR) once the event has an outcome, one past the client's position.
 */
function endOnly(options: Parameters<typeof resumeAgUiStream>[0] & { heartbeat: { heartbeatMs?: number } }): Response {
  const { c, backend, input, id } = options;
  return sseResponse({
    c,
    ...options.heartbeat,
    run: async (client) => {
      const final = await finalEventState({ backend, eventId: id.key, closed: client.closed });
      if (final === undefined) return;
      const { state: _state, ...outcome } = final as EventState & TurnOutcome;
      const out = await AgUiStreamWriter.open({
        start: id.position.cursor,
        send: (chunk, position) => client.sendRaw(`id: ${id.key}:${formatPosition(position)}\n${chunk}`),
      });
      out.moveTo({ cursor: id.position.cursor, offset: id.position.offset + 1 });
      await new AgUiRun({ backend, threadId: input.threadId, runId: input.runId, emit: out.emit }).end(outcome);
    },
  });
}
