/**
 * `GET /v1/instances` (every known instance, live or only on disk) and `GET /v1/instances/:agent/:instanceKey/events`
 * (the instance's runtime events from the store, oldest first; `?limit=N` keeps the last N, `?after=C` only those
 * after the cursor C an earlier answer gave; `404 E_INSTANCE_NOT_FOUND` when it has none at all). The path's agent and
 * instance key are checked like the body fields that name them. On a cluster node both answer for every node: each
 * instance once, with the `node` that runs it (or kept it last), each event with the node that recorded it, and the
 * nodes that did not answer in time under `unanswered`.
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { AGENT_NAME_SCHEMA, INSTANCE_KEY_SCHEMA, requestSchema } from "../request-schema.ts";
import { pagingSchema, readRuntimeEvents } from "../runtime-event-reads.ts";
import { noQuery } from "./no-query.ts";

const EVENTS = "GET /v1/instances/:agent/:instanceKey/events";

const listQuery = noQuery("GET /v1/instances");
const eventsPath = requestSchema<{ agent: string; instanceKey: string }>({
  route: EVENTS,
  part: "path",
  schema: {
    type: "object",
    required: ["agent", "instanceKey"],
    additionalProperties: false,
    properties: { agent: AGENT_NAME_SCHEMA, instanceKey: INSTANCE_KEY_SCHEMA },
  },
});
const eventsQuery = (clustered: boolean) =>
  requestSchema<{ limit?: number; after?: number | string }>({
    route: EVENTS,
    part: "query",
    schema: { type: "object", additionalProperties: false, properties: pagingSchema(clustered) },
  });
const queries = { host: eventsQuery(false), cluster: eventsQuery(true) };

export function instanceRoutes(backend: ApiBackend): Hono<ApiEnv> {
  const query = backend.cluster ? queries.cluster : queries.host;
  return new Hono<ApiEnv>()
    .get("/v1/instances", listQuery, async (c) => {
      const cluster = backend.cluster;
      if (!cluster) return c.json({ instances: await backend.orchestrator.instances() });
      return c.json(await cluster.reads.instances());
    })
    .get(
      "/v1/instances/:agent/:instanceKey/events",
      validator("param", (value) => eventsPath(value)),
      validator("query", (value) => query(value)),
      async (c) => {
        const { agent, instanceKey } = c.req.valid("param");
        const { limit, after } = c.req.valid("query");
        if (!backend.orchestrator.swarm.agents.has(agent))
          throw new ApiError({
            status: 404,
            code: "E_AGENT_NOT_FOUND",
            message: `agent ${JSON.stringify(agent)} is not in the swarm`,
          });
        const page = await readRuntimeEvents(backend, { agent, instanceKey, ...(limit ? { limit } : {}) }, after);
        if (
          page.events.length === 0 &&
          (after === undefined ||
            (await readRuntimeEvents(backend, { agent, instanceKey, limit: 1 })).events.length === 0)
        ) {
          throw new ApiError({
            status: 404,
            code: "E_INSTANCE_NOT_FOUND",
            message: `instance ${agent}/${instanceKey} has no runtime events`,
          });
        }
        return c.json({ agent, instanceKey, ...page });
      },
    );
}
