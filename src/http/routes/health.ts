/** `GET /healthz`: `200 {status: "ok"}` once the orchestrator serves; open without a token, for health checks. */
import { Hono } from "hono";
import type { ApiEnv } from "../api-env.ts";
import { noQuery } from "./no-query.ts";

const query = noQuery("GET /healthz");

export function healthRoutes(): Hono<ApiEnv> {
  return new Hono<ApiEnv>().get("/healthz", query, (c) => c.json({ status: "ok" }));
}
