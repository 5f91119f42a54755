/**
 * `GET /v1/cluster`: in cluster mode, this node, the bundle hash it runs, the cluster's bundle with its last reload
 * announcement (generation, who asked, why), and how each node took that reload (`reloaded`, or `refused` with the
 * error: another bundle on that node, or an invalid one). On one host (no `--cluster`): 404 E_NOT_A_CLUSTER.
 */
import { Hono } from "hono";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { noQuery } from "./no-query.ts";

const query = noQuery("GET /v1/cluster");

export function clusterRoutes(backend: ApiBackend): Hono<ApiEnv> {
  return new Hono<ApiEnv>().get("/v1/cluster", query, async (c) => {
    const cluster = backend.cluster;
    if (!cluster)
      throw new ApiError({
        status: 404,
        code: "E_NOT_A_CLUSTER",
        message: "this orchestrator runs on one host: start it with --cluster to run it as a node of a cluster",
      });
    return c.json(await cluster.status());
  });
}
