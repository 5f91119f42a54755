/**
 * `GET /v1/events/:eventId/stream`: resumes the stream of a `POST /v1/events` with `"stream": true` after the client
 * lost it. `Last-Event-ID` (the id of the last message it got; none: from the start) picks where: the messages this
 * orchestrator kept of the stream after it (sse-replay-log.ts), then the live ones to the last, none twice. An
 * event whose stream it does not keep (it restarted since, or the event was sent without streaming) is answered
 * from the store: `done` with the outcome once there is one, preceded by `restarted` `{reason: "redelivered"}` when
 * the client had got messages of a turn that did not end (after a restart it runs again from the start); the stream
 * waits for the outcome meanwhile. `404 E_API_EVENT_NOT_FOUND` for an event never accepted.
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { EventState } from "../../protocol/api-wire.ts";
import { finalEventState, isFinalState, readEventState } from "../event-final-state.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import type { SseReplayLog } from "../sse-replay-log.ts";
import { EVENT_ID_PATH_SCHEMA, requestSchema } from "../request-schema.ts";
import { sseResponse, type SseWriter } from "../sse-stream.ts";
import { noQuery } from "./no-query.ts";

const ROUTE = "GET /v1/events/:eventId/stream";
const path = requestSchema<{ eventId: string }>({
  route: ROUTE,
  part: "path",
  schema: EVENT_ID_PATH_SCHEMA,
});

function lastId(header: string | undefined): number {
  if (header === undefined || header === "") return 0;
  if (!/^\d{1,9}$/.test(header))
    throw new ApiError({
      status: 400,
      code: "E_API_BAD_REQUEST",
      message: `${ROUTE}: header Last-Event-ID: expected the id of a message of this stream (a whole number), got ${JSON.stringify(header.slice(0, 100))}`,
    });
  return Number(header);
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
      const after = lastId(c.req.header("last-event-id"));
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
      return sseResponse({ c, ...heartbeat, run: (writer) => fromStore({ writer, eventId, after, state }) });
    },
  );

  async function fromStore(context: {
    writer: SseWriter;
    eventId: string;
    after: number;
    state: EventState;
  }): Promise<void> {
    const { writer, eventId } = context;
    let id = context.after;
    if (!isFinalState(context.state) && id > 0)
      writer.send({ event: "restarted", id: String(++id), data: { reason: "redelivered" } });
    const state = await finalEventState({ backend, eventId, state: context.state, closed: writer.closed });
    if (state === undefined || state.state === "accepted" || state.state === "running") return;
    const { state: _state, ...outcome } = state;
    writer.send({ event: "done", id: String(++id), data: outcome });
  }
}
