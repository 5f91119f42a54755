/**
 * The web studio (docs/studio.md): `GET /` is its page and `GET /studio/<file>` its script and stylesheet, built by
 * studio-bundle.ts from src/http/studio/ on first request (Preact components, no CDN, nothing fetched at run time).
 * The page and assets hold no data, so they are open like `/healthz`; everything the page shows comes from the API
 * routes, called with the session cookie the login link set (routes/login.ts), or the bearer token the page asks for
 * when it has none. Served with a
 * strict Content-Security-Policy (own origin only) and framing refused.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../api-env.ts";
import { ApiError } from "../api-error.ts";
import { studioFiles } from "../studio-bundle.ts";

const HEADERS = {
  "cache-control": "no-cache",
  "content-security-policy":
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

export function studioRoutes(): Hono<ApiEnv> {
  const serve = async (name: string) => {
    // Only the files the build made are served: a fixed set, never a path taken from the request.
    const file = (await studioFiles()).get(name);
    if (file === undefined)
      throw new ApiError({ status: 404, code: "E_API_NOT_FOUND", message: `no studio file ${name.slice(0, 100)}` });
    return new Response(file.body, { headers: { ...HEADERS, "content-type": file.type } });
  };
  return new Hono<ApiEnv>().get("/", () => serve("index.html")).get("/studio/:file", (c) => serve(c.req.param("file")));
}
