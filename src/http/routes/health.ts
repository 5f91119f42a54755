/**
 * `GET /healthz`: `200 {status: "ok"}` once the orchestrator serves; open without a token, for health checks. A
 * cluster node adds its `cluster` standing, and says `status: "disconnected"` (still 200: the process is alive and
 * reconnects by itself; restarting it would forget the instances it claims back) while it has lost NATS.
 */
import { Hono } from "hono";
import type { ApiBackend } from "../api-backend.ts";
import type { ApiEnv } from "../api-env.ts";
import { noQuery } from "./no-query.ts";

const query = noQuery("GET /healthz");

export function healthRoutes(backend?: Pick<ApiBackend, "cluster">): Hono<ApiEnv> {
  return new Hono<ApiEnv>().get("/healthz", query, (c) => {
    const cluster = backend?.cluster?.standing();
    if (cluster === undefined) return c.json({ status: "ok" });
    return c.json({ status: cluster.connection === "connected" ? "ok" : "disconnected", cluster });
  });
}
