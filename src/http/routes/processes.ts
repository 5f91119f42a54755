/**
 * `GET /v1/processes`: the process table of agents and connectors, with their supervision status. A cluster node
 * answers every node's rows (each with its `node`), the nodes that did not answer in time (`unanswered`), and its
 * own `cluster` standing: a node that lost NATS lists only its own rows and says `connection: "reconnecting"`.
 */
import { Hono } from "hono";
import type { ApiBackend } from "../api-backend.ts";
import type { ApiEnv } from "../api-env.ts";
import { noQuery } from "./no-query.ts";

const query = noQuery("GET /v1/processes");

export function processRoutes(backend: ApiBackend): Hono<ApiEnv> {
  return new Hono<ApiEnv>().get("/v1/processes", query, async (c) => {
    const cluster = backend.cluster;
    if (!cluster) return c.json({ processes: backend.processes() });
    return c.json({ ...(await cluster.reads.processes()), cluster: cluster.standing() });
  });
}
