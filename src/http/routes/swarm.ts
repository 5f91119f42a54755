/**
 * `GET /v1/swarm`: the Swarm as the bundle declares it, before any traffic (config/swarm-graph.ts): its agents with
 * their models and tools, the entry agent, who may call whom, and its connections with the agents they route to.
 * The studio's Agents view is drawn from it.
 */
import { Hono } from "hono";
import type { ApiBackend } from "../api-backend.ts";
import type { ApiEnv } from "../api-env.ts";
import { noQuery } from "./no-query.ts";

const query = noQuery("GET /v1/swarm");

export function swarmRoutes(backend: Pick<ApiBackend, "orchestrator">): Hono<ApiEnv> {
  return new Hono<ApiEnv>().get("/v1/swarm", query, (c) => {
    const { swarm } = backend.orchestrator;
    return c.json({ ...swarm.graph, instanceKey: swarm.instanceKey });
  });
}
