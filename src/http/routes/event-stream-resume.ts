/**
 * `GET /v1/events/:eventId/stream`: resumes the stream of a `POST /v1/events` with `"stream": true` after the client
 * lost it. `Last-Event-ID` (the id of the last message it got; none: from the start) picks where: the messages this
 * orchestrator kept of the stream after it (event-stream-log.ts), then the live ones to the last, none twice. An
 * event whose stream it does not keep (it restarted since, or the event was sent without streaming) is answered
 * from the store: `done` with the outcome once there is one, preceded by `restarted` `{reason: "redelivered"}` when
 * the client had got messages of a turn that did not end (after a restart it runs again from the start); the stream
 * waits for the outcome meanwhile. `404 E_API_EVENT_NOT_FOUND` for an event never accepted.
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { EventState } from "../../protocol/api-wire.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import type { EventStreamLog } from "../event-stream-log.ts";
import { requestSchema } from "../request-schema.ts";
import { sseResponse, type SseWriter } from "../sse-stream.ts";
import { noQuery } from "./no-query.ts";

const ROUTE = "GET /v1/events/:eventId/stream";
const path = requestSchema<{ eventId: string }>({
  route: ROUTE,
  part: "path",
  schema: {
    type: "object",
    required: ["eventId"],
    additionalProperties: false,
    properties: { eventId: { type: "string", minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_.:-]+$" } },
  },
});

const isFinal = (state: EventState | undefined) =>
  state !== undefined && state.state !== "accepted" && state.state !== "running";

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

export function resumedStream(options: { backend: ApiBackend; log: EventStreamLog; heartbeatMs?: number }) {
  const { backend, log } = options;
  const stateOf = async (eventId: string): Promise<EventState | undefined> =>
    backend.cluster
      ? ((await backend.cluster.reads.eventState(eventId)).state as EventState | undefined)
      : backend.orchestrator.eventState(eventId);
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
          run: async (writer) => {
            let ended: () => void = () => {};
            const end = new Promise<void>((resolve) => (ended = resolve));
            const stop = record.follow(after, (message) => {
              writer.send(message);
              if (message.event === "done" || message.event === "error") ended();
            });
            await Promise.race([end, writer.closed]);
            stop();
          },
        });
      const state = await stateOf(eventId);
      if (state === undefined)
        throw new ApiError({
          status: 404,
          code: "E_API_EVENT_NOT_FOUND",
          message: `no accepted event ${JSON.stringify(eventId)} in this swarm`,
        });
      return sseResponse({ c, ...heartbeat, run: (writer) => fromStore({ writer, eventId, after, state, stateOf }) });
    },
  );

  async function fromStore(context: {
    writer: SseWriter;
    eventId: string;
    after: number;
    state: EventState;
    stateOf: (eventId: string) => Promise<EventState | undefined>;
  }): Promise<void> {
    const { writer, eventId } = context;
    let id = context.after;
    let state: EventState | undefined = context.state;
    if (!isFinal(state) && id > 0)
      writer.send({ event: "restarted", id: String(++id), data: { reason: "redelivered" } });
    // Looked at again after every batch of runtime events (the turn's own end is one of them), and every few seconds
    // (on a cluster node the turn may run on another node).
    let wake: () => void = () => {};
    const stop = backend.orchestrator.onRuntimeEvents(() => wake());
    try {
      while (!isFinal(state) && !writer.isClosed) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, 2000);
          }),
          writer.closed,
        ]);
        clearTimeout(timer);
        state = await context.stateOf(eventId);
      }
    } finally {
      stop();
    }
    if (state === undefined || !isFinal(state) || state.state === "accepted" || state.state === "running") return;
    const { state: _state, ...outcome } = state;
    writer.send({ event: "done", id: String(++id), data: outcome });
  }
}
