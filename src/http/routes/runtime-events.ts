/**
 * `GET /v1/runtime-events`: the swarm's stored runtime events, oldest first, filtered as `goondan logs` filters them
 * (all optional and combined: `agent`, `instanceKey`, `turnId`, `traceId`), paged like an instance's events
 * (`limit=N` keeps the newest N, `after=C` only those after an earlier answer's `cursor`). `{events, cursor}`, an
 * empty list when nothing matches. On a cluster node every node's events, merged in time order, each with its
 * `node`, the cursor one position per node (`n1:12,n2:40`), the nodes that did not answer (`unanswered`), and
 * `more: true` when a node's events did not fit one page (read on from the cursor).
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { ApiBackend } from "../api-backend.ts";
import type { ApiEnv } from "../api-env.ts";
import { AGENT_NAME_SCHEMA, INSTANCE_KEY_SCHEMA, requestSchema } from "../request-schema.ts";
import { pagingSchema, readRuntimeEvents, type EventFilters } from "../runtime-event-reads.ts";

const ROUTE = "GET /v1/runtime-events";
const ID = {
  type: "string",
  minLength: 1,
  maxLength: 200,
  pattern: "^[A-Za-z0-9_.:-]+$",
  description: "letters, digits, _ . : -",
};

const eventsQuery = (clustered: boolean) =>
  requestSchema<EventFilters & { after?: number | string }>({
    route: ROUTE,
    part: "query",
    schema: {
      type: "object",
      additionalProperties: false,
      properties: {
        agent: AGENT_NAME_SCHEMA,
        instanceKey: INSTANCE_KEY_SCHEMA,
        turnId: ID,
        traceId: ID,
        ...pagingSchema(clustered),
      },
    },
  });
const queries = { host: eventsQuery(false), cluster: eventsQuery(true) };

export function runtimeEventRoutes(backend: ApiBackend): Hono<ApiEnv> {
  const query = backend.cluster ? queries.cluster : queries.host;
  return new Hono<ApiEnv>().get(
    ROUTE.slice(4),
    validator("query", (value) => query(value)),
    async (c) => {
      const { after, ...filters } = c.req.valid("query");
      return c.json(await readRuntimeEvents(backend, filters, after));
    },
  );
}
