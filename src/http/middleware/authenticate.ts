/**
 * Who a request acts as, and whether it may: with credentials configured (the daemon always has some unless
 * `GOONDAN_API_AUTH=off`), every path but the open ones (route-scopes.ts) needs `Authorization: Bearer <token>` of
 * a credential, or the studio's session cookie (studio-logins.ts), else `401 E_API_UNAUTHORIZED`; then the route's
 * scope, else `403 E_API_SCOPE_REQUIRED`. The rest of the request runs as that credential (`c.var.principal`, and
 * request-principal.ts for code without the context). An app without credentials stays open, as before: what
 * in-process tests build, and what `GOONDAN_API_AUTH=off` asks for.
 */
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import type { CredentialSet, Principal } from "../auth/credential.ts";
import { actingAs } from "../auth/request-principal.ts";
import { isOpenPath, scopeFor } from "../auth/route-scopes.ts";
import { grants } from "../auth/scopes.ts";
import { sessionCookieName, type StudioLogins } from "../auth/studio-logins.ts";

function unauthorized(message: string): ApiError {
  return new ApiError({
    status: 401,
    code: "E_API_UNAUTHORIZED",
    message,
    suggestion:
      "send Authorization: Bearer <token> (GOONDAN_API_TOKEN, a tokens-file credential, or <state root>/api-token), or open the studio through the login link goondan run printed",
    headers: { "www-authenticate": "Bearer" },
  });
}

function principalOf(options: {
  header: string | undefined;
  cookie: string | undefined;
  credentials: CredentialSet;
  logins: StudioLogins | undefined;
}): Principal {
  const { header, cookie } = options;
  if (header !== undefined) {
    const presented = header.startsWith("Bearer ") ? header.slice(7) : "";
    const principal = options.credentials.find(presented);
    if (principal === undefined) throw unauthorized("missing or wrong bearer token");
    return principal;
  }
  const principal = cookie === undefined ? undefined : options.logins?.session(cookie);
  if (principal === undefined)
    throw unauthorized(cookie === undefined ? "missing bearer token" : "the studio session has lapsed; log in again");
  return principal;
}

export function authenticate(options: {
  credentials?: CredentialSet;
  logins?: StudioLogins;
}): MiddlewareHandler<ApiEnv> {
  const { credentials, logins } = options;
  return async function authenticate(c, next) {
    if (credentials === undefined || credentials.size === 0 || isOpenPath(c.req.path)) return next();
    const principal = principalOf({
      header: c.req.header("authorization"),
      cookie: getCookie(c, sessionCookieName(new URL(c.req.url).port)),
      credentials,
      logins,
    });
    const needed = scopeFor(c.req.method, c.req.path);
    if (!grants(principal.scopes, needed))
      throw new ApiError({
        status: 403,
        code: "E_API_SCOPE_REQUIRED",
        message: `credential ${principal.name} (scopes ${principal.scopes.join(", ")}) may not ${c.req.method.slice(0, 10)} ${c.req.path.slice(0, 200)}: that needs the ${needed} scope`,
        suggestion: "use a credential that holds it; see docs/http-api.md#credentials",
      });
    c.set("principal", principal);
    await actingAs(principal, next);
  };
}
