/**
 * The Origin check, so a web page on another site cannot drive the agents: a request whose `Origin` is neither
 * the API's own (a page served at the request's Host, which passed the host check) nor an allowed origin, or
 * whose `Sec-Fetch-Site` says `cross-site` or `same-site` without an allowed `Origin`, gets `403
 * E_API_ORIGIN_FORBIDDEN`. Clients that are not browsers send neither header and pass. Requests from an allowed
 * origin get CORS headers (hono's cors; a streamed reply's `x-goondan-event-id` is readable by the page), and their
 * preflight `OPTIONS` is answered here.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { requestHost } from "./host-check.ts";

const forbidden = (message: string): ApiError =>
  new ApiError({
    status: 403,
    code: "E_API_ORIGIN_FORBIDDEN",
    message,
    suggestion: "call the API from a program, or list the page's origin in GOONDAN_API_ALLOWED_ORIGINS",
  });

/**
 * Whether a page from `origin` was served at the request's own Host (which the host check let through). The
 * scheme is not compared, so a page served through a TLS proxy in front of the API counts as its own.
 */
function sameHost(origin: string, host: string): boolean {
  try {
    return new URL(origin).host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}

export function originCheck(options: { allowedOrigins?: readonly string[] }): MiddlewareHandler<ApiEnv> {
  const listed = new Set(options.allowedOrigins ?? []);
  const withCors = cors({
    origin: (origin) => (listed.has(origin) ? origin : null),
    allowMethods: ["GET", "POST"],
    allowHeaders: ["authorization", "content-type", "last-event-id"],
    exposeHeaders: ["x-goondan-event-id"],
    maxAge: 600,
  });
  return async function originCheck(c, next) {
    const origin = c.req.header("origin");
    if (origin !== undefined && listed.has(origin)) return withCors(c, next);
    const site = c.req.header("sec-fetch-site");
    if (origin !== undefined && !sameHost(origin, requestHost(c) ?? "")) {
      throw forbidden(`a page from origin ${JSON.stringify(origin.slice(0, 100))} may not call this API`);
    }
    if (site === "cross-site" || site === "same-site")
      throw forbidden(`a page on another site (Sec-Fetch-Site: ${site}) may not call this API`);
    await next();
  };
}
