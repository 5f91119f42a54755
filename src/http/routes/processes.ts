/** `GET /v1/processes`: the process table of agents and connectors, with their supervision status. */
import { Hono } from "hono";
import type { ApiBackend } from "../api-backend.ts";
import type { ApiEnv } from "../api-env.ts";
import { noQuery } from "./no-query.ts";

const query = noQuery("GET /v1/processes");

export function processRoutes(backend: ApiBackend): Hono<ApiEnv> {
  return new Hono<ApiEnv>().get("/v1/processes", query, async (c) => c.json({ processes: backend.clusterProcesses ? await backend.clusterProcesses() : backend.processes() }));
}
