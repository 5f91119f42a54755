/**
 * `POST /v1/events`: sends an event to an agent instance. `202 {eventId, agent, instanceKey}` once it is durably
 * accepted; with `wait: true`, the turn's outcome when it ends (its `usage` the tokens of every turn of the event,
 * delegated ones included: turn-usage.ts) (`504 E_AGENT_REQUEST_TIMEOUT` with the eventId past
 * `timeoutMs`: the event stays accepted and still runs). With `stream: true`, once accepted, a `text/event-stream`
 * (its eventId in the `x-goondan-event-id` header) of the turn's progress as it happens (sse-progress.ts), ended by
 * one `done` whose data is what `wait: true` answers, or `error` `{error: {code, message}, eventId}`; a client that
 * goes away does not stop the turn. `GET /v1/events/:eventId`: where an accepted event stands, from the store
 * (`accepted`, `running`, or the outcome with `state` `ok`/`error`), `404 E_API_EVENT_NOT_FOUND` if never accepted;
 * on a cluster node, the furthest state any node knows, with that `node` and the nodes that did not answer.
 * Every message of a stream has an `id` (1, 2, …); `GET /v1/events/:eventId/stream` resumes it: with `Last-Event-ID`
 * the messages after it, none twice, then the live ones to `done` (sse-replay-log.ts). An event this orchestrator
 * did not stream (it restarted since) is answered from the store: `done` once it has an outcome (the outcome as the
 * store keeps it: its own turn's usage), `restarted` `{reason: "redelivered"}` first when the client had messages of
 * a turn that did not end (it runs again from the start).
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { Submitted } from "../../orchestrator/orchestrator-options.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { JsonObject } from "../../shared/json.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { jsonBody } from "../middleware/json-body.ts";
import {
  AGENT_NAME_SCHEMA,
  EVENT_ID_PATH_SCHEMA,
  INSTANCE_KEY_SCHEMA,
  MAX_TIMEOUT_MS,
  requestSchema,
} from "../request-schema.ts";
import { turnMessage } from "../sse-progress.ts";
import { LiveTurnFeed } from "../turn-stream.ts";
import { newTraceId } from "../../shared/ids.ts";
import { sseResponse } from "../sse-stream.ts";
import { SseReplayLog } from "../sse-replay-log.ts";
import { resumedStream } from "./event-stream-resume.ts";
import { type UsageWatch, watchUsage } from "../turn-usage.ts";
import { noQuery } from "./no-query.ts";

/** The response header of a streamed answer that names the accepted event (to fetch it later). */
export const EVENT_ID_HEADER = "x-goondan-event-id";

interface EventBody {
  input: string;
  agent?: string;
  instanceKey?: string;
  wait?: boolean;
  stream?: boolean;
  timeoutMs?: number;
  metadata?: JsonObject;
}

const query = noQuery("POST /v1/events");
const body = requestSchema<EventBody>({
  route: "POST /v1/events",
  part: "body",
  schema: {
    type: "object",
    required: ["input"],
    additionalProperties: false,
    properties: {
      input: { type: "string", minLength: 1 },
      agent: AGENT_NAME_SCHEMA,
      instanceKey: INSTANCE_KEY_SCHEMA,
      wait: { type: "boolean" },
      stream: { type: "boolean" },
      timeoutMs: { type: "integer", minimum: 1, maximum: MAX_TIMEOUT_MS },
      metadata: { type: "object" },
    },
  },
});

/** The outcome with the usage of every turn of its event (delegated ones included) in place of its own turn's. */
function withEventUsage(outcome: TurnOutcome, usage: UsageWatch): TurnOutcome {
  return outcome.usage === undefined ? outcome : { ...outcome, usage: usage.usageOf(outcome.eventId) };
}

/** The turn's outcome, or why there is none to give: the wait ran out, or the orchestrator stopped first. */
export async function awaitOutcome(submitted: Submitted, timeoutMs: number): Promise<TurnOutcome | ApiError> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
  const outcome = await Promise.race([submitted.outcome, timedOut]);
  clearTimeout(timer);
  if (!outcome) {
    return new ApiError({
      status: 504,
      code: "E_AGENT_REQUEST_TIMEOUT",
      message: `no reply within ${timeoutMs} ms; the event stays accepted and will still run`,
      extra: { eventId: submitted.eventId },
    });
  }
  if (outcome.error?.code === "E_ORCHESTRATOR_STOPPED") {
    return new ApiError({
      status: 503,
      code: "E_ORCHESTRATOR_STOPPED",
      message: outcome.error.message,
      suggestion: "the event runs when goondan starts again on the same state root",
      extra: { eventId: submitted.eventId },
    });
  }
  return outcome;
}

const statePath = requestSchema<{ eventId: string }>({
  route: "GET /v1/events/:eventId",
  part: "path",
  schema: EVENT_ID_PATH_SCHEMA,
});

export function eventRoutes(options: {
  backend: ApiBackend;
  maxBodyBytes: number;
  heartbeatMs?: number;
}): Hono<ApiEnv> {
  const { backend } = options;
  const log = new SseReplayLog();
  return new Hono<ApiEnv>()
    .post("/v1/events", query, jsonBody({ maxBytes: options.maxBodyBytes, check: body }), async (c) => {
      const event = c.var.body as EventBody;
      // A stream hears the trace's events and the turn's text from before the submit (turn-stream.ts).
      const feed = event.stream === true ? new LiveTurnFeed<TurnOutcome | ApiError>(backend, newTraceId()) : undefined;
      // An answer that waits counts the tokens of all the event's turns: it watches them from before the submit.
      const usage = event.wait === true || event.stream === true ? watchUsage(backend) : undefined;
      let submitted: Submitted;
      // The stream's trace is new: every stored event of it is the stream's (its first cursor is 0).
      const start = 0;
      try {
        submitted = backend.orchestrator.submit({
          input: event.input,
          ...(event.agent !== undefined ? { agent: event.agent } : {}),
          ...(event.instanceKey !== undefined ? { instanceKey: event.instanceKey } : {}),
          ...(event.metadata !== undefined ? { metadata: event.metadata } : {}),
          ...(feed === undefined ? {} : { traceId: feed.traceId, onProgress: feed.onProgress }),
        });
        // Nobody hears of an event before it is on disk: the 202 waits for the store's sync (shared by the tick's accepts).
        await submitted.accepted;
      } catch (error) {
        usage?.stop();
        feed?.close();
        throw error;
      }
      const timeoutMs = event.timeoutMs ?? backend.orchestrator.swarm.policy.requestTimeoutMs;
      if (usage === undefined)
        return c.json({ eventId: submitted.eventId, agent: submitted.agent, instanceKey: submitted.instanceKey }, 202);
      if (feed !== undefined) {
        c.header(EVENT_ID_HEADER, submitted.eventId);
        const record = log.open(submitted.eventId);
        return sseResponse({
          c,
          ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
          run: async (client) => {
            const { value: ended, projection } = await feed.run({
              eventId: submitted.eventId,
              start,
              emit: (message, position) => record.send(client, turnMessage(message), position),
              ended: awaitOutcome(submitted, timeoutMs).finally(usage.stop),
            });
            if (ended instanceof ApiError)
              record.send(
                client,
                { event: "error", data: { error: { code: ended.code, message: ended.message }, ...ended.extra } },
                projection.endPosition,
              );
            else record.send(client, { event: "done", data: withEventUsage(ended, usage) }, projection.endPosition);
            record.end();
          },
        });
      }
      c.env.keepOpen();
      const ended = await awaitOutcome(submitted, timeoutMs).finally(usage.stop);
      if (ended instanceof ApiError) throw ended;
      return c.json(withEventUsage(ended, usage), 200);
    })
    .route(
      "/",
      resumedStream({
        backend,
        log,
        ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      }),
    )
    .get(
      "/v1/events/:eventId",
      validator("param", (value) => statePath(value)),
      noQuery("GET /v1/events/:eventId"),
      async (c) => {
        const { eventId } = c.req.valid("param");
        const cluster = backend.cluster;
        if (cluster) {
          const { state, unanswered } = await cluster.reads.eventState(eventId);
          if (state === undefined)
            throw new ApiError({
              status: 404,
              code: "E_API_EVENT_NOT_FOUND",
              message: `no node that answered accepted an event ${JSON.stringify(eventId)} in this swarm`,
              extra: { unanswered: unanswered.map(({ node, status }) => ({ node, status })) },
            });
          return c.json({ ...state, unanswered });
        }
        const state = await backend.orchestrator.eventState(eventId);
        if (state === undefined)
          throw new ApiError({
            status: 404,
            code: "E_API_EVENT_NOT_FOUND",
            message: `no accepted event ${JSON.stringify(eventId)} in this swarm`,
          });
        return c.json(state);
      },
    );
}
