/**
 * The Host check, so DNS rebinding fails: a page on `http://attacker.example:8790` whose name its owner re-points
 * to 127.0.0.1 reaches the API with `Host: attacker.example:8790`, which is refused with `403
 * E_API_HOST_FORBIDDEN`. Served: `localhost`, the bound address, loopback IP literals, any IP literal when bound to
 * a wildcard (a rebinding page always carries a name), and the names the operator lists (`*`: any). The port is
 * not compared: port forwarding (`docker -p 8080:8790`, `ssh -L`) changes it, and rebinding does not depend on it.
 */
import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { hostnameOf, isIpLiteral, isLoopbackHost, isWildcardHost } from "../bound-address.ts";

/**
 * The request's Host: the header, or for a request made in process (tests) the URL's host. Undefined for an
 * HTTP/1.0 request without one, whose URL Bun leaves relative.
 */
export function requestHost(c: Context<ApiEnv>): string | undefined {
  const header = c.req.header("host");
  if (header !== undefined) return header;
  try {
    return new URL(c.req.url).host;
  } catch {
    return undefined;
  }
}

export function hostCheck(options: { boundHost: string; allowedHosts?: readonly string[] }): MiddlewareHandler<ApiEnv> {
  const listed = new Set(options.allowedHosts ?? []);
  const bound = hostnameOf(options.boundHost) ?? options.boundHost.toLowerCase();
  const wildcard = isWildcardHost(options.boundHost);
  const allowed = (name: string): boolean =>
    listed.has("*") ||
    listed.has(name) ||
    name === "localhost" ||
    name === bound ||
    (isIpLiteral(name) && (wildcard || isLoopbackHost(name)));
  return async function hostCheck(c, next) {
    const host = requestHost(c);
    const name = host === undefined ? undefined : hostnameOf(host);
    if (name === undefined || !allowed(name)) {
      throw new ApiError({
        status: 403,
        code: "E_API_HOST_FORBIDDEN",
        message:
          host === undefined
            ? "a request without a Host header is not served"
            : `Host ${JSON.stringify(host.slice(0, 100))} is not a name this API answers to`,
        suggestion: "reach the API by its address or localhost, or list the name in GOONDAN_API_ALLOWED_HOSTS",
      });
    }
    await next();
  };
}
