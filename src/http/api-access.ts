/**
 * Who may use the HTTP API, as the operator configures it in the environment of `goondan run`:
 * `GOONDAN_API_TOKEN` (the bearer token), `GOONDAN_API_ALLOWED_ORIGINS` (web origins whose pages may call the API,
 * comma-separated, e.g. `http://localhost:5173`) and `GOONDAN_API_ALLOWED_HOSTS` (host names the API answers to
 * besides its own address and `localhost`, comma-separated; `*` turns the Host check off). Each list is checked
 * when read, and an API bound beyond loopback without a token refuses to start.
 */
import { UsageError } from "../shared/errors.ts";
import type { CredentialSet, Principal } from "./auth/credential.ts";
import type { RateLimitSettings } from "./auth/rate-limits.ts";
import type { StudioLogins } from "./auth/studio-logins.ts";
import { isIpLiteral, isLoopbackHost } from "./bound-address.ts";

export interface ApiAccess {
  /** Bearer token; when set every route but /healthz needs `Authorization: Bearer <token>`. Default: none. */
  token?: string;
  /** Origins (`scheme://host[:port]`) whose pages may call the API, answered with CORS headers. Default: none. */
  allowedOrigins?: readonly string[];
  /** Extra host names the Host header may carry; `*` allows any. Default: none. */
  allowedHosts?: readonly string[];
  /** Named credentials and their scopes (auth/api-auth.ts); with them, `token` is not needed. Default: none. */
  credentials?: CredentialSet;
  /** The studio's one-time login codes and sessions. */
  logins?: StudioLogins;
  /** Who the login link printed at start logs in as. */
  studio?: Principal;
  /** Default: none. */
  rateLimits?: RateLimitSettings;
}

/** Where the API listens, and who may use it. */
export type ApiListenOptions = ApiAccess & { host: string; port: number };

function entries(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

function invalid(variable: string, message: string): UsageError {
  return new UsageError("E_API_ACCESS_INVALID", `${variable}: ${message}`, {
    suggestion: `fix or unset ${variable}; see docs/http-api.md#security`,
  });
}

/** `http://localhost:5173/` → `http://localhost:5173`; anything but a bare http(s) origin is refused. */
function origin(entry: string): string {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw invalid(
      "GOONDAN_API_ALLOWED_ORIGINS",
      `expected origins like http://localhost:5173, got ${JSON.stringify(entry)}`,
    );
  }
  if (
    !["http:", "https:"].includes(url.protocol) ||
    url.username !== "" ||
    url.password !== "" ||
    url.pathname !== "/" ||
    url.search !== "" ||
    url.hash !== ""
  ) {
    throw invalid(
      "GOONDAN_API_ALLOWED_ORIGINS",
      `expected an http or https origin (scheme, host and optional port, no path), got ${JSON.stringify(entry)}`,
    );
  }
  return url.origin;
}

function hostName(entry: string): string {
  if (entry === "*") return entry;
  const name = entry.toLowerCase();
  if (/^[a-z0-9._-]+$/.test(name) || isIpLiteral(name)) return name.startsWith("[") ? name.slice(1, -1) : name;
  throw invalid(
    "GOONDAN_API_ALLOWED_HOSTS",
    `expected host names without a port (e.g. goondan.internal) or *, got ${JSON.stringify(entry)}`,
  );
}

/** The API access the environment configures; throws a UsageError naming the variable that is malformed. */
export function apiAccessFromEnv(env: Record<string, string | undefined>): ApiAccess {
  const token = env.GOONDAN_API_TOKEN;
  if (token !== undefined && token !== "" && token.trim() === "") {
    throw new UsageError("E_API_ACCESS_INVALID", "GOONDAN_API_TOKEN is blank (only whitespace)", {
      suggestion: "set a real token, or unset GOONDAN_API_TOKEN",
    });
  }
  const allowedOrigins = entries(env.GOONDAN_API_ALLOWED_ORIGINS).map(origin);
  const allowedHosts = entries(env.GOONDAN_API_ALLOWED_HOSTS).map(hostName);
  return {
    ...(token ? { token } : {}),
    ...(allowedOrigins.length > 0 ? { allowedOrigins } : {}),
    ...(allowedHosts.length > 0 ? { allowedHosts } : {}),
  };
}

/**
 * Refuses to serve beyond loopback without a token (`token`, or `credentials` counting the configured ones): anyone
 * who reaches the port would drive agents with a shell.
 */
export function requireTokenOffLoopback(options: { host: string; token?: string; credentials?: number }): void {
  if (options.token || (options.credentials ?? 0) > 0 || isLoopbackHost(options.host)) return;
  throw new UsageError(
    "E_API_TOKEN_REQUIRED",
    `the HTTP API would listen on ${options.host}, beyond loopback, without a bearer token`,
    {
      suggestion:
        "set GOONDAN_API_TOKEN or GOONDAN_API_TOKENS_FILE (a generated token counts only on loopback), or listen on loopback with --host 127.0.0.1",
    },
  );
}
