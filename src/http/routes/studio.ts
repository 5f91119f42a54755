/**
 * The web studio (docs/observability.md#studio): `GET /` is its page and `GET /studio/<file>` its scripts and
 * stylesheet, plain ES modules and CSS shipped under src/http/studio/ (no build step, no CDN). The page and assets
 * hold no data, so they are open like `/healthz`; everything the page shows comes from the API routes, called with
 * the bearer token the page asks for (`Authorization: Bearer`, never a cookie). Served with a strict
 * Content-Security-Policy (own origin only) and framing refused.
 */
import { readdirSync } from "node:fs";
import { Hono } from "hono";
import type { ApiEnv } from "../api-env.ts";
import { ApiError } from "../api-error.ts";

const DIR = new URL("../studio/", import.meta.url).pathname;
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};

/** The paths the bearer token leaves open. */
export const STUDIO_OPEN_PATHS = ["/", "/studio/*"] as const;

const HEADERS = {
  "cache-control": "no-cache",
  "content-security-policy":
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

export function studioRoutes(): Hono<ApiEnv> {
  // Only the files that ship are served: a fixed list, read once, never a path taken from the request.
  const assets = new Set(readdirSync(DIR).filter((name) => /^[a-z0-9-]+\.(js|css)$/.test(name)));
  const serve = (name: string) =>
    new Response(Bun.file(DIR + name), {
      headers: { ...HEADERS, "content-type": TYPES[name.split(".").pop() as string] as string },
    });
  return new Hono<ApiEnv>()
    .get("/", () => serve("index.html"))
    .get("/studio/:file", (c) => {
      const file = c.req.param("file");
      if (!assets.has(file))
        throw new ApiError({ status: 404, code: "E_API_NOT_FOUND", message: `no studio file ${file.slice(0, 100)}` });
      return serve(file);
    });
}
