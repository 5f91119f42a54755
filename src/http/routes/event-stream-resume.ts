/**
 * `GET /v1/events/:eventId/stream`: resumes the stream of a `POST /v1/events` with `"stream": true` after the client
 * lost it. `Last-Event-ID` (the id of the last message it got, `<cursor>.<offset>`; none: from the start) picks
 * where: the messages this orchestrator kept of the stream past it (sse-replay-log.ts), then the live ones to the
 * last, none twice. An event whose stream it does not keep (it restarted since, or the event was sent without
 * streaming) is answered from the store at the same positions (turn-projection.ts): the tool calls and the text of
 * each model call the client does not hold, `restarted` where the turn ran again, the new turn's messages as they
 * are stored, and `done` once the event has an outcome (its usage that of every turn of the event, as live). A turn
 * running again after a restart sends its text whole per model call, not token by token.
 * `404 E_API_EVENT_NOT_FOUND` for an event never accepted.
 */
import { Hono } from "hono";
import type { EventState } from "../../protocol/api-wire.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import { validator } from "hono/validator";
import { finalEventState, readEventState } from "../event-final-state.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import type { SseReplayLog } from "../sse-replay-log.ts";
import { EVENT_ID_PATH_SCHEMA, requestSchema } from "../request-schema.ts";
import { sseResponse, type SseWriter } from "../sse-stream.ts";
import { turnMessage } from "../sse-progress.ts";
import {
  comparePositions,
  formatPosition,
  parsePosition,
  START_POSITION,
  type StreamPosition,
} from "../stream-position.ts";
import { storedTurn, traceOfEvent } from "../turn-stream.ts";
import { noQuery } from "./no-query.ts";

const ROUTE = "GET /v1/events/:eventId/stream";
const path = requestSchema<{ eventId: string }>({
  route: ROUTE,
  part: "path",
  schema: EVENT_ID_PATH_SCHEMA,
});

/** The client's position: its `Last-Event-ID` (a `<cursor>.<offset>` this stream sent), the start without one. */
function lastPosition(header: string | undefined): StreamPosition {
  if (header === undefined || header === "") return START_POSITION;
  const position = parsePosition(header);
  if (position === undefined)
    throw new ApiError({
      status: 400,
      code: "E_API_BAD_REQUEST",
      message: `${ROUTE}: header Last-Event-ID: expected the id of a message of this stream (<cursor>.<offset>), got ${JSON.stringify(header.slice(0, 100))}`,
    });
  return position;
}

export function resumedStream(options: { backend: ApiBackend; log: SseReplayLog; heartbeatMs?: number }) {
  const { backend, log } = options;
  const heartbeat = options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs };
  return new Hono<ApiEnv>().get(
    "/v1/events/:eventId/stream",
    validator("param", (value) => path(value)),
    noQuery(ROUTE),
    async (c) => {
      const { eventId } = c.req.valid("param");
      const after = lastPosition(c.req.header("last-event-id"));
      const record = log.get(eventId);
      if (record !== undefined)
        return sseResponse({
          c,
          ...heartbeat,
          run: (writer) => record.replay(after, writer),
        });
      const state = await readEventState(backend, eventId);
      if (state === undefined)
        throw new ApiError({
          status: 404,
          code: "E_API_EVENT_NOT_FOUND",
          message: `no accepted event ${JSON.stringify(eventId)} in this swarm`,
        });
      const traceId = await traceOfEvent(backend, eventId);
      if (traceId === undefined)
        return sseResponse({ c, ...heartbeat, run: (writer) => endOnly(writer, eventId, after) });
      return sseResponse({ c, ...heartbeat, run: (writer) => fromStore({ writer, eventId, traceId, after }) });
    },
  );

  /**
   * An event this node's store does not hold (a cluster node that did not accept it; its turn's events are another
   * node's): `done` alone once it has an outcome, one past the client's position.
   */
  async function endOnly(writer: SseWriter, eventId: string, after: StreamPosition): Promise<void> {
    const state = await finalEventState({ backend, eventId, closed: writer.closed });
    if (state === undefined) return;
    const { state: _state, ...outcome } = state as EventState & TurnOutcome;
    writer.send({ event: "done", id: formatPosition({ ...after, offset: after.offset + 1 }), data: outcome });
  }

  /** The stream past the client's position, from the store, then its last message. */
  async function fromStore(context: {
    writer: SseWriter;
    eventId: string;
    traceId: string;
    after: StreamPosition;
  }): Promise<void> {
    const { writer, eventId, traceId, after } = context;
    const send = (message: { event: string; data: unknown }, position: StreamPosition) =>
      writer.send({ ...message, id: formatPosition(position) });
    const { state, projection, usage } = await storedTurn({
      backend,
      eventId,
      traceId,
      from: after,
      emit: (message, position, silent) =>
        silent || comparePositions(position, after) <= 0 ? undefined : send(turnMessage(message), position),
      closed: writer.closed,
    });
    if (state === undefined || state.state === "accepted" || state.state === "running") return;
    if (projection.endedFor(after)) return;
    const { state: _state, ...outcome } = state as EventState & TurnOutcome;
    const data = outcome.usage === undefined ? outcome : { ...outcome, usage };
    send({ event: "done", data }, projection.endPosition);
  }
}
