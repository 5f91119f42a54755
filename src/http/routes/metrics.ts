/**
 * `GET /metrics`: the swarm's metrics in Prometheus text format (observability/swarm-metrics.ts). Behind the bearer
 * token like every route but `/healthz` (a scraper sends `Authorization: Bearer …`; Prometheus' `authorization`
 * setting does); `404 E_API_NOT_FOUND` when the daemon serves no metrics.
 */
import { Hono } from "hono";
import type { SwarmMetrics } from "../../observability/swarm-metrics.ts";
import type { ApiEnv } from "../api-env.ts";
import { ApiError } from "../api-error.ts";
import { noQuery } from "./no-query.ts";

const query = noQuery("GET /metrics");

export function metricsRoutes(metrics: SwarmMetrics | undefined): Hono<ApiEnv> {
  return new Hono<ApiEnv>().get("/metrics", query, async (c) => {
    if (!metrics)
      throw new ApiError({ status: 404, code: "E_API_NOT_FOUND", message: "this daemon serves no metrics" });
    const { text, contentType } = await metrics.render();
    return c.body(text, 200, { "content-type": contentType });
  });
}
