/**
 * `POST /v1/events`: sends an event to an agent instance. `202 {eventId, agent, instanceKey}` once it is durably
 * accepted; with `wait: true`, the turn's outcome when it ends (`504 AGENT_REQUEST_TIMEOUT` with the eventId past
 * `timeoutMs`: the event stays accepted and still runs). `stream: true` is where a `text/event-stream` answer
 * (hono's streamSSE) will go; until it does, it is refused with `501 E_API_STREAM_UNSUPPORTED` rather than ignored.
 */
import { Hono } from "hono";
import type { JsonObject } from "../../shared/json.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { AGENT_NAME_SCHEMA, INSTANCE_KEY_SCHEMA, MAX_TIMEOUT_MS, requestSchema } from "../request-schema.ts";
import { noQuery } from "./no-query.ts";

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

export function eventRoutes(options: { backend: ApiBackend; maxBodyBytes: number }): Hono<ApiEnv> {
  const { backend } = options;
  return new Hono<ApiEnv>().post("/v1/events", query, jsonBody({ maxBytes: options.maxBodyBytes, check: body }), async (c) => {
    const event = c.var.body as EventBody;
    if (event.stream === true) {
      throw new ApiError({ status: 501, code: "E_API_STREAM_UNSUPPORTED", message: "streamed replies are not served yet", suggestion: 'send "wait": true for the whole reply at once' });
    }
    const submitted = backend.submit({
      input: event.input,
      ...(event.agent !== undefined ? { agent: event.agent } : {}),
      ...(event.instanceKey !== undefined ? { instanceKey: event.instanceKey } : {}),
      ...(event.metadata !== undefined ? { metadata: event.metadata } : {}),
    });
    // Nobody hears of an event before it is on disk: the 202 waits for the store's sync (shared by the tick's accepts).
    await submitted.accepted;
    if (event.wait !== true) return c.json({ eventId: submitted.eventId, agent: submitted.agent, instanceKey: submitted.instanceKey }, 202);
    const timeoutMs = event.timeoutMs ?? backend.swarm.policy.requestTimeoutMs;
    c.env.keepOpen();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
    const outcome = await Promise.race([submitted.outcome, timedOut]);
    clearTimeout(timer);
    if (!outcome) {
      throw new ApiError({ status: 504, code: "AGENT_REQUEST_TIMEOUT", message: `no reply within ${timeoutMs} ms; the event stays accepted and will still run`, extra: { eventId: submitted.eventId } });
    }
    if (outcome.error?.code === "ORCHESTRATOR_STOPPED") {
      throw new ApiError({ status: 503, code: "ORCHESTRATOR_STOPPED", message: outcome.error.message, suggestion: "the event runs when goondan starts again on the same state root", extra: { eventId: submitted.eventId } });
    }
    return c.json(outcome, 200);
  });
}
