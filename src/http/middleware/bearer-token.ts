/**
 * The bearer token check: with a token configured, every route but the open ones (`/healthz`, for container
 * health checks; the studio's static page and assets, which hold no data and ask for the token themselves; an entry
 * ending in `*` opens the paths it prefixes) needs `Authorization: Bearer <token>`, else `401 E_API_UNAUTHORIZED`. Compared in constant time
 * over digests, so neither the token's content nor its length leaks through timing. Any token text works (hono's
 * bearer-auth takes only token68 characters, which would lock out tokens operators already use).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";

const digest = (value: string): Buffer => createHash("sha256").update(value).digest();

export function bearerToken(options: { token?: string; open: readonly string[] }): MiddlewareHandler<ApiEnv> {
  const { token } = options;
  const expected = token ? digest(token) : undefined;
  const isOpen = (path: string): boolean =>
    options.open.some((open) => (open.endsWith("*") ? path.startsWith(open.slice(0, -1)) : path === open));
  return async function bearerToken(c, next) {
    if (expected && !isOpen(c.req.path)) {
      const header = c.req.header("authorization") ?? "";
      const presented = header.startsWith("Bearer ") ? header.slice(7) : "";
      if (!(timingSafeEqual(digest(presented), expected) && presented.length > 0)) {
        throw new ApiError({
          status: 401,
          code: "E_API_UNAUTHORIZED",
          message: "missing or wrong bearer token",
          suggestion: "send Authorization: Bearer $GOONDAN_API_TOKEN",
          headers: { "www-authenticate": "Bearer" },
        });
      }
    }
    await next();
  };
}
