/**
 * How operator commands reach a running orchestrator's HTTP API: `--host`/`--port` (default `GOONDAN_HOST` or
 * 127.0.0.1, and `GOONDAN_PORT` or 8790; `goondan run` listens on the same defaults), bearer token from
 * `GOONDAN_API_TOKEN`, else, for a loopback host, the token `goondan run` made in the state root (`--state-root`, default
 * `GOONDAN_STATE_ROOT` or ~/.goondan; src/http/auth/state-root-token.ts), JSON both ways. The command acts as the
 * credential of that token.
 * An unreachable API is a SystemError `E_API_UNREACHABLE`, so callers can tell "not running".
 */
import { SystemError, UsageError } from "../../shared/errors.ts";
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { readStateRootToken } from "../../http/auth/state-root-token.ts";
import { isLoopbackHost } from "../../http/bound-address.ts";
import type { FlagSpec } from "../args.ts";

export const API_FLAGS: Record<string, FlagSpec> = {
  host: {
    type: "string",
    description: "host of the running orchestrator's HTTP API (default GOONDAN_HOST or 127.0.0.1)",
  },
  port: { type: "number", description: "port of the running orchestrator's HTTP API (default GOONDAN_PORT or 8790)" },
  "state-root": {
    type: "string",
    description:
      "state directory whose api-token is sent when GOONDAN_API_TOKEN is not set (default GOONDAN_STATE_ROOT or ~/.goondan)",
  },
};

export interface ApiTarget {
  baseUrl: string;
  token?: string;
}

const setting = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value.trim();

/** The API's host and port: the flags, then GOONDAN_HOST / GOONDAN_PORT, then 127.0.0.1:8790 (the port unchecked). */
export function apiAddress(options: {
  flags: Record<string, string | boolean | number | undefined>;
  env: Record<string, string | undefined>;
}): { host: string; port: number } {
  const { flags, env } = options;
  return {
    host: typeof flags.host === "string" ? flags.host : (setting(env.GOONDAN_HOST) ?? "127.0.0.1"),
    port: typeof flags.port === "number" ? flags.port : Number(setting(env.GOONDAN_PORT) ?? 8790),
  };
}

export function apiTarget(options: {
  flags: Record<string, string | boolean | number | undefined>;
  env: Record<string, string | undefined>;
}): ApiTarget {
  const { env } = options;
  const { host, port: rawPort } = apiAddress(options);
  if (!Number.isInteger(rawPort) || rawPort <= 0 || rawPort > 65535)
    throw new UsageError("E_USAGE_BAD_VALUE", `--port expects a port number 1-65535, got ${rawPort}`);
  const stateRoot =
    typeof options.flags["state-root"] === "string" ? options.flags["state-root"] : defaultStateRoot(env);
  // The state root's token is for the daemon on this machine: never sent to another host.
  const token = env.GOONDAN_API_TOKEN || (isLoopbackHost(host) ? readStateRootToken(stateRoot) : undefined);
  return { baseUrl: `http://${host.includes(":") ? `[${host}]` : host}:${rawPort}`, ...(token ? { token } : {}) };
}

export interface ApiResponse {
  status: number;
  body: unknown;
}

export async function callApi(options: {
  target: ApiTarget;
  method: "GET" | "POST" | "DELETE";
  path: string;
  body?: unknown;
  timeoutMs?: number;
}): Promise<ApiResponse> {
  const { target } = options;
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  let response: Response;
  try {
    response = await fetch(`${target.baseUrl}${options.path}`, {
      method: options.method,
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (error) {
    throw new SystemError(
      "E_API_UNREACHABLE",
      `no goondan orchestrator answers at ${target.baseUrl} (${error instanceof Error ? error.message : String(error)})`,
      {
        suggestion: "start it with 'goondan run', or pass --port/--host of the running one",
      },
    );
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body };
}

/** `{error: {code, message}}` from an API error body, when it has one. */
export function apiError(body: unknown): { code: string; message: string } | undefined {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (error && typeof error.code === "string")
    return { code: error.code, message: typeof error.message === "string" ? error.message : "" };
  return undefined;
}

/** A cluster read's missing nodes as a line: `nodes n3 (timeout), n4 (no_responders) did not answer: <what> missing`; undefined when none is missing. */
export function unansweredNotice(
  unanswered: ReadonlyArray<{ node: string; status: string }>,
  what: string,
): string | undefined {
  if (unanswered.length === 0) return undefined;
  return `node${unanswered.length > 1 ? "s" : ""} ${unanswered.map((item) => `${item.node} (${item.status})`).join(", ")} did not answer: ${what} missing`;
}
