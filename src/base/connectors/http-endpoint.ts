/**
 * What the built-in HTTP connectors (webhook, slack, discord, github) share: where they listen (port, host
 * 127.0.0.1 by default, path) read from the Connection's config under upstream's and our own key names, the
 * request body read under a byte cap, JSON answers, the server itself, and how a refused `emit` maps to an
 * HTTP status (refused for good → 4xx/ignored; the orchestrator unavailable → 503 so the sender retries).
 */
import { readStreamCapped } from "../channels/http-call.ts";
import { configValue } from "./config-value.ts";

export interface EndpointSettings {
  port: number;
  host: string;
  path: string;
  maxBodyBytes: number;
}

function numberOf(value: unknown, fallback: number): number {
  const parsed =
    typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : fallback;
}

/** Reads port/host/path/maxBodyBytes, each under any of its names (upstream's first), with defaults. */
export function endpointSettings(
  config: Record<string, unknown>,
  options: {
    portKeys: string[];
    pathKeys: string[];
    defaultPath: string;
    defaultPort?: number;
    defaultMaxBodyBytes?: number;
  },
): EndpointSettings {
  const path = String(configValue(config, ...options.pathKeys) ?? options.defaultPath).trim() || options.defaultPath;
  return {
    port: numberOf(configValue(config, ...options.portKeys, "port", "PORT"), options.defaultPort ?? 8787),
    host: String(configValue(config, "host", "HOST") ?? "127.0.0.1"),
    path: path.startsWith("/") ? path : `/${path}`,
    maxBodyBytes: numberOf(
      configValue(config, "maxBodyBytes", "MAX_BODY_BYTES"),
      options.defaultMaxBodyBytes ?? 1024 * 1024,
    ),
  };
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

export const problem = (status: number, code: string, message: string, headers?: Record<string, string>): Response =>
  json(status, { error: { code, message } }, headers);

/** The body's bytes, read as they stream in and given up (undefined) as soon as they pass `maxBytes`. */
export async function readCappedBody(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  if (Number(request.headers.get("content-length") ?? "0") > maxBytes) return undefined;
  return readStreamCapped(request.body, maxBytes);
}

/** An HTTP server for a connector's handler (stopping it drops open connections). */
export function serveEndpoint(options: {
  settings: EndpointSettings;
  handler: (request: Request) => Promise<Response>;
}): { port: number; stop(): void } {
  // Bun's own limit would answer an empty 413 before the handler runs: handlers cap the body themselves.
  const server = Bun.serve({
    port: options.settings.port,
    hostname: options.settings.host,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch: options.handler,
  });
  return { port: server.port ?? options.settings.port, stop: () => void server.stop(true) };
}

/** How an emit failure is told to the sender: `refused` (no route, invalid: retrying will not help) or `unavailable`. */
export function emitFailure(error: unknown): { kind: "refused" | "unavailable"; code: string; message: string } {
  const code =
    typeof (error as { code?: unknown })?.code === "string"
      ? (error as { code: string }).code
      : "E_CONNECTOR_NOT_ACCEPTED";
  const message = error instanceof Error ? error.message : String(error);
  return {
    kind: code === "E_CONNECTOR_NO_ROUTE" || code === "E_CONNECTOR_EVENT_INVALID" ? "refused" : "unavailable",
    code,
    message,
  };
}

/** Remembers the last `size` keys, to drop events a sender delivers twice (retries). */
export class RecentKeys {
  private readonly keys = new Set<string>();
  constructor(private readonly size = 1000) {}

  /** True when `key` was seen before; otherwise remembers it. */
  seen(key: string): boolean {
    if (this.keys.has(key)) return true;
    this.keys.add(key);
    if (this.keys.size > this.size) this.keys.delete(this.keys.values().next().value as string);
    return false;
  }

  /** Forgets `key` (its event was not accepted, so a retry must go through). */
  forget(key: string): void {
    this.keys.delete(key);
  }
}
