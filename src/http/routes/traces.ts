/**
 * Read routes the studio builds its views on: `GET /v1/traces/:traceId` (every runtime event of one trace, oldest
 * first, across every agent process it went through: `404 E_TRACE_NOT_FOUND` when none),
 * `GET /v1/traces/:traceId/spans/:spanId` (one span with its inputs, outputs, tokens, errors and retries, as
 * observability/trace-span.ts builds it: `404 E_SPAN_NOT_FOUND` when no event of the trace carries it) and
 * `GET /v1/instances/:agent/:instanceKey/messages` (the instance's stored conversation, oldest first; `404
 * E_INSTANCE_NOT_FOUND` when it has none). On a cluster node a trace's events come from every node, each naming its
 * `node`, and a conversation from the node holding the instance's lease, else from the freshest copy a node keeps
 * (its `node` named); both name the nodes that did not answer in time (`unanswered`).
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { AGENT_NAME_SCHEMA, INSTANCE_KEY_SCHEMA, requestSchema } from "../request-schema.ts";
import { readRuntimeEvents } from "../runtime-event-reads.ts";
import { noQuery } from "./no-query.ts";
import { traceSpan } from "../../observability/trace-span.ts";

const TRACE = "GET /v1/traces/:traceId";
const SPAN = "GET /v1/traces/:traceId/spans/:spanId";
const MESSAGES = "GET /v1/instances/:agent/:instanceKey/messages";

const tracePath = requestSchema<{ traceId: string }>({
  route: TRACE,
  part: "path",
  schema: {
    type: "object",
    required: ["traceId"],
    additionalProperties: false,
    properties: { traceId: { type: "string", pattern: "^[0-9a-f]{32}$" } },
  },
});
const spanPath = requestSchema<{ traceId: string; spanId: string }>({
  route: SPAN,
  part: "path",
  schema: {
    type: "object",
    required: ["traceId", "spanId"],
    additionalProperties: false,
    properties: {
      traceId: { type: "string", pattern: "^[0-9a-f]{32}$" },
      spanId: { type: "string", pattern: "^[0-9a-f]{16}$" },
    },
  },
});
const messagesPath = requestSchema<{ agent: string; instanceKey: string }>({
  route: MESSAGES,
  part: "path",
  schema: {
    type: "object",
    required: ["agent", "instanceKey"],
    additionalProperties: false,
    properties: { agent: AGENT_NAME_SCHEMA, instanceKey: INSTANCE_KEY_SCHEMA },
  },
});

export function traceRoutes(backend: ApiBackend): Hono<ApiEnv> {
  return new Hono<ApiEnv>()
    .get(
      "/v1/traces/:traceId",
      noQuery(TRACE),
      validator("param", (value) => tracePath(value)),
      async (c) => {
        const { traceId } = c.req.valid("param");
        const { events, unanswered } = await readRuntimeEvents(backend, { traceId });
        if (events.length === 0)
          throw new ApiError({
            status: 404,
            code: "E_TRACE_NOT_FOUND",
            message: `no runtime event carries trace ${traceId}`,
          });
        return c.json({ traceId, events, ...(unanswered === undefined ? {} : { unanswered }) });
      },
    )
    .get(
      "/v1/traces/:traceId/spans/:spanId",
      noQuery(SPAN),
      validator("param", (value) => spanPath(value)),
      async (c) => {
        const { traceId, spanId } = c.req.valid("param");
        const { events, unanswered } = await readRuntimeEvents(backend, { traceId });
        const span = traceSpan(events, spanId);
        if (span === undefined)
          throw new ApiError({
            status: 404,
            code: "E_SPAN_NOT_FOUND",
            message: `no runtime event of trace ${traceId} carries span ${spanId}`,
          });
        return c.json({ span, ...(unanswered === undefined ? {} : { unanswered }) });
      },
    )
    .get(
      "/v1/instances/:agent/:instanceKey/messages",
      noQuery(MESSAGES),
      validator("param", (value) => messagesPath(value)),
      async (c) => {
        const { agent, instanceKey } = c.req.valid("param");
        if (!backend.orchestrator.swarm.agents.has(agent))
          throw new ApiError({
            status: 404,
            code: "E_AGENT_NOT_FOUND",
            message: `agent ${JSON.stringify(agent)} is not in the swarm`,
          });
        const cluster = backend.cluster;
        if (cluster) {
          const { node, messages, unanswered } = await cluster.reads.conversation(agent, instanceKey);
          if (node === undefined)
            throw new ApiError({
              status: 404,
              code: "E_INSTANCE_NOT_FOUND",
              message: `instance ${agent}/${instanceKey} has no conversation on any node that answered`,
              extra: { unanswered: unanswered.map(({ node: name, status }) => ({ node: name, status })) },
            });
          return c.json({ agent, instanceKey, node, messages, unanswered });
        }
        const messages = await backend.orchestrator.messages(agent, instanceKey);
        if (messages.length === 0)
          throw new ApiError({
            status: 404,
            code: "E_INSTANCE_NOT_FOUND",
            message: `instance ${agent}/${instanceKey} has no conversation`,
          });
        return c.json({ agent, instanceKey, messages });
      },
    );
}
