/**
 * `GET /v1/processes`: the process table of agents and connectors, with their supervision status and, for a live
 * child on Linux, its `cpuSeconds` and `rssBytes` (process-usage.ts), and the budgets in their current window
 * (`budgets`, docs/limits.md#budgets). A cluster node
 * answers every node's rows (each with its `node`), the nodes that did not answer in time (`unanswered`), and its
 * own `cluster` standing: a node that lost NATS lists only its own rows and says `connection: "reconnecting"`.
 */
import { Hono } from "hono";
import type { ApiBackend } from "../api-backend.ts";
import type { ApiEnv } from "../api-env.ts";
import { noQuery } from "./no-query.ts";
import { processUsage } from "../../supervision/process-usage.ts";

const query = noQuery("GET /v1/processes");

export function processRoutes(backend: ApiBackend): Hono<ApiEnv> {
  return new Hono<ApiEnv>().get("/v1/processes", query, async (c) => {
    const cluster = backend.cluster;
    if (!cluster)
      return c.json({
        processes: backend.processes().map((row) => ({ ...row, ...(row.pid === null ? {} : processUsage(row.pid)) })),
        budgets: (await backend.orchestrator.budgets?.()) ?? [],
      });
    return c.json({ ...(await cluster.reads.processes()), cluster: cluster.standing() });
  });
}
