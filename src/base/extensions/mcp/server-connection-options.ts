/**
 * What an McpServerConnection is built from: the server's spec, the logger, where its tool list goes, and the
 * clock, restart backoff (doubling from `initialMs` to `maxMs`, started over after `stableMs` up) and transport
 * factory, each with its default.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Clock } from "../../../shared/clock.ts";
import type { Logger } from "../../../shared/logger.ts";
import type { McpServerSpec } from "./server-spec.ts";

export interface RestartBackoff {
  /** First delay after a failure. Default 500 ms. */
  initialMs: number;
  /** Cap of the doubling delay. Default 30000 ms. */
  maxMs: number;
  /** A connection that stayed up this long starts the backoff over. Default 10000 ms. */
  stableMs: number;
}

export const DEFAULT_RESTART_BACKOFF: RestartBackoff = { initialMs: 500, maxMs: 30_000, stableMs: 10_000 };

export interface ServerConnectionOptions {
  spec: McpServerSpec;
  logger: Logger;
  /** Receives the server's whole tool list after each (re)connect and each list change. */
  onTools: (tools: Tool[]) => void;
  /** Default systemClock. */
  clock?: Clock;
  /** Default DEFAULT_RESTART_BACKOFF. */
  backoff?: RestartBackoff;
  /** Default: the guarded stdio transport or the SDK's Streamable HTTP transport, per the spec. */
  createTransport?: (spec: McpServerSpec, logger: Logger) => Transport;
}
