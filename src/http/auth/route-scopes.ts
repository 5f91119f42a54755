/**
 * The scope each route of the HTTP API needs (scopes.ts), decided in one place so no route can be added without one:
 * reads (GET) need `read`; deciding a held call or waking a suspended one (`POST /v1/approvals/:id`,
 * `POST /v1/signals/:name`) needs `approve`; minting a studio login code for oneself needs only `read` (it logs the
 * studio in as the same credential); every other write needs `operate`. AG-UI's and A2A's runs need `operate`, and
 * the approvals they decide need `approve` besides (approver.ts). `open` are the paths that need no credential: the
 * health check, the studio's static page and assets (no data), and the login link.
 */
import type { Scope } from "./scopes.ts";

export const OPEN_PATHS = ["/healthz", "/login", "/", "/studio/*"] as const;

const OVERRIDES: ReadonlyArray<{ method: string; path: RegExp; scope: Scope }> = [
  { method: "POST", path: /^\/v1\/approvals\/[^/]+$/, scope: "approve" },
  { method: "POST", path: /^\/v1\/signals\/[^/]+$/, scope: "approve" },
  { method: "POST", path: /^\/v1\/login-codes$/, scope: "read" },
];

export function isOpenPath(path: string): boolean {
  return OPEN_PATHS.some((open) => (open.endsWith("*") ? path.startsWith(open.slice(0, -1)) : path === open));
}

/** The scope a request needs: an override, else `read` for GET and HEAD, else `operate`. */
export function scopeFor(method: string, path: string): Scope {
  const override = OVERRIDES.find((entry) => entry.method === method && entry.path.test(path));
  if (override) return override.scope;
  return method === "GET" || method === "HEAD" ? "read" : "operate";
}
