/**
 * One MCP server as the agent process sees it: an SDK `Client` over the server's transport, connected when the
 * agent starts, its tool list handed to `onTools` after every (re)connect and every
 * `notifications/tools/list_changed`, and reconnected (a stdio server restarted) with a doubling backoff after
 * it fails to start, dies, or stops answering. Tool calls go through `callTool`, which never waits on a server
 * in backoff: it fails at once with E_MCP_UNAVAILABLE saying when the next attempt is, so the model can decide.
 * ctx.signal is handed to the SDK, which sends `notifications/cancelled` to the server when it fires.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { systemClock, type Clock, type TimerHandle } from "../../../shared/clock.ts";
import type { JsonObject } from "../../../shared/json.ts";
import type { Logger } from "../../../shared/logger.ts";
import { describeThrown } from "../../../tools/tool-errors.ts";
import type { CallResult } from "./call-result.ts";
import { GuardedStdioTransport } from "./guarded-stdio-transport.ts";
import { mcpFault } from "./mcp-fault.ts";
import { redactSecrets } from "../../../shared/redact-secrets.ts";
import { closeQuietly, defaultTransport } from "./default-transport.ts";
import {
  DEFAULT_RESTART_BACKOFF,
  type RestartBackoff,
  type ServerConnectionOptions,
} from "./server-connection-options.ts";

export { DEFAULT_RESTART_BACKOFF };
export type { RestartBackoff, ServerConnectionOptions };

export type McpTool = Tool;
export type ConnectionStatus = "idle" | "connecting" | "ready" | "backoff" | "stopped";

const CLIENT_INFO = { name: "goondan", version: "0.1.0" };
/** How long stop() gives an HTTP server to end the session (DELETE) before closing anyway. */
const SESSION_END_WAIT_MS = 1_000;
/** Bound on tools/list pages, so a server that always answers with a cursor cannot keep us listing. */
const MAX_LIST_PAGES = 50;

export class McpServerConnection {
  private statusValue: ConnectionStatus = "idle";
  private client: Client | undefined;
  private transport: Transport | undefined;
  private attempt: Promise<void> | undefined;
  private retryTimer: TimerHandle | undefined;
  private retryAt: number | undefined;
  private failures = 0;
  private connectedAt: number | undefined;
  private refreshing: Promise<void> = Promise.resolve();
  private lastFailure: string | undefined;
  private readonly clock: Clock;
  private readonly backoff: RestartBackoff;
  private readonly logger: Logger;

  constructor(private readonly options: ServerConnectionOptions) {
    this.clock = options.clock ?? systemClock;
    this.backoff = options.backoff ?? DEFAULT_RESTART_BACKOFF;
    this.logger = options.logger.child({ mcpServer: options.spec.name });
  }

  get status(): ConnectionStatus {
    return this.statusValue;
  }

  /** The stdio server's pid while it runs (its process group id too). */
  get pid(): number | undefined {
    return this.transport instanceof GuardedStdioTransport ? this.transport.pid : undefined;
  }

  /** Why the last attempt failed or the connection dropped (secrets redacted). */
  get failure(): string | undefined {
    return this.lastFailure;
  }

  /** Starts the first connection attempt; resolves when it has succeeded or failed (a failure schedules a retry). */
  start(): Promise<void> {
    if (this.statusValue !== "idle") return this.attempt ?? Promise.resolve();
    this.attempt = this.connect();
    return this.attempt;
  }

  /** Resolves once the tool list refreshes started so far have been handed to onTools. */
  toolsSettled(): Promise<void> {
    return this.refreshing;
  }

  /** Calls one tool; a server that cannot be reached or breaks the call becomes a ToolFault (E_MCP_UNAVAILABLE, E_TOOL_TIMEOUT, E_MCP_TOOL_ERROR). */
  async callTool(options: { name: string; args: JsonObject; signal: AbortSignal }): Promise<CallResult> {
    const client = await this.usableClient(options.signal);
    try {
      return (await client.callTool({ name: options.name, arguments: options.args }, undefined, {
        signal: options.signal,
        timeout: this.options.spec.timeoutMs,
      })) as CallResult;
    } catch (error) {
      throw this.callFailure(error, client);
    }
  }

  /** Stops for good: no more retries, an HTTP session ended at the server, the client closed, a stdio server's process group ended. */
  async stop(): Promise<void> {
    this.statusValue = "stopped";
    if (this.retryTimer !== undefined) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const client = this.client;
    this.client = undefined;
    const transport = this.transport;
    if (client !== undefined && transport instanceof StreamableHTTPClientTransport)
      await withinMs(transport.terminateSession(), SESSION_END_WAIT_MS);
    await closeQuietly(client, transport);
  }

  private async connect(): Promise<void> {
    if (this.statusValue === "stopped") return;
    this.statusValue = "connecting";
    const { spec } = this.options;
    const transport = (this.options.createTransport ?? defaultTransport)(spec, this.logger);
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    this.transport = transport;
    client.onerror = (error) => this.logger.debug({ err: this.redacted(error) }, "MCP client error");
    try {
      await client.connect(transport, { timeout: spec.connectTimeoutMs });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        void this.refreshTools(client);
      });
      await this.listInto(client);
    } catch (error) {
      await closeQuietly(client, transport);
      if (this.isStopped()) return;
      this.lastFailure = this.describeFailure(error, transport);
      this.logger.warn(
        { transport: spec.transport.type, reason: this.lastFailure },
        "MCP server could not be started or connected; retrying with backoff",
      );
      this.scheduleRetry();
      return;
    }
    if (this.isStopped()) {
      await closeQuietly(client, transport);
      return;
    }
    this.client = client;
    this.connectedAt = this.clock.now();
    this.statusValue = "ready";
    this.lastFailure = undefined;
    // Set after connect: a close during the attempt is that attempt's failure, not a dropped connection.
    client.onclose = () => this.onDropped(client, transport);
    this.logger.info({ transport: spec.transport.type, pid: this.pid }, "MCP server connected");
  }

  /** A method, not a field read: stop() may run while connect() awaits, which flow analysis cannot see. */
  private isStopped(): boolean {
    return this.statusValue === "stopped";
  }

  private async listInto(client: Client): Promise<void> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: this.options.spec.connectTimeoutMs,
      });
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    this.options.onTools(tools);
  }

  /** Refreshes are chained so lists are handed over in the order they were asked for. */
  private refreshTools(client: Client): Promise<void> {
    this.refreshing = this.refreshing.then(async () => {
      if (this.client !== undefined && this.client !== client) return; // a list from a connection since replaced
      try {
        await this.listInto(client);
      } catch (error) {
        this.logger.warn(
          { err: this.redacted(error) },
          "MCP server announced a tool list change but listing its tools failed; keeping the previous list",
        );
      }
    });
    return this.refreshing;
  }

  private onDropped(client: Client, transport: Transport): void {
    if (this.client !== client || this.statusValue === "stopped") return;
    this.client = undefined;
    this.lastFailure = this.describeFailure(new Error("the connection closed"), transport);
    this.logger.warn({ reason: this.lastFailure }, "MCP server stopped; restarting it with backoff");
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.statusValue === "stopped") return;
    const now = this.clock.now();
    if (this.connectedAt !== undefined && now - this.connectedAt >= this.backoff.stableMs) this.failures = 0;
    this.connectedAt = undefined;
    const delay = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** Math.min(this.failures, 30));
    this.failures += 1;
    this.statusValue = "backoff";
    this.retryAt = now + delay;
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      this.attempt = this.connect();
    }, delay);
  }

  private async usableClient(signal: AbortSignal): Promise<Client> {
    if (this.statusValue === "connecting" && this.attempt !== undefined) await raceAbort(this.attempt, signal);
    if (this.statusValue === "ready" && this.client !== undefined) return this.client;
    const name = this.options.spec.name;
    if (this.statusValue === "backoff") {
      const seconds = Math.max(0, Math.ceil(((this.retryAt ?? this.clock.now()) - this.clock.now()) / 1000));
      throw mcpFault(
        "unavailable",
        `MCP server '${name}' is not available: ${this.lastFailure ?? "it is restarting"}`,
        `goondan tries again in ${seconds} s; retry the call after that, or do without this tool.`,
      );
    }
    throw mcpFault("unavailable", `MCP server '${name}' is not available (${this.statusValue}).`);
  }

  private callFailure(error: unknown, client: Client): Error {
    const name = this.options.spec.name;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return mcpFault(
        "timeout",
        `MCP server '${name}' did not answer within ${this.options.spec.timeoutMs} ms; the call was cancelled.`,
        "Retry with a smaller request, or raise timeoutMs for this server.",
      );
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return mcpFault(
        "unavailable",
        `MCP server '${name}' stopped during the call: ${this.describeFailure(error, this.transport)}`,
        "goondan restarts it; retry the call in a few seconds.",
      );
    }
    if (error instanceof McpError)
      return mcpFault("toolError", redactSecrets(error.message, this.options.spec.secrets));
    // Anything else is the transport failing (an HTTP server gone, a session it forgot): reconnect.
    if (this.client === client && this.statusValue === "ready") {
      this.client = undefined;
      this.lastFailure = this.describeFailure(error, this.transport);
      this.logger.warn(
        { reason: this.lastFailure },
        "MCP server call failed at the transport; reconnecting with backoff",
      );
      void closeQuietly(client, undefined);
      this.scheduleRetry();
    }
    return mcpFault(
      "unavailable",
      `MCP server '${name}' could not be reached: ${this.describeFailure(error, undefined)}`,
      "goondan reconnects; retry the call in a few seconds.",
    );
  }

  private describeFailure(error: unknown, transport: Transport | undefined): string {
    const exit = transport instanceof GuardedStdioTransport ? transport.exitDescription : undefined;
    const status = (error as { code?: unknown } | undefined)?.code;
    // The SDK's StreamableHTTPError carries the HTTP status as its code; say it, it is often the whole story.
    const message = `${typeof status === "number" && status >= 100 && status < 600 ? `HTTP ${status}: ` : ""}${describeThrown(error).message}`;
    return redactSecrets(exit === undefined ? message : `${message} (${exit})`, this.options.spec.secrets);
  }

  private redacted(error: unknown): { message: string } {
    return { message: redactSecrets(describeThrown(error).message, this.options.spec.secrets) };
  }
}

/** Waits for `promise` (its failure ignored) at most `ms`. */
async function withinMs(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}

function raceAbort(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    promise.then(done, done);
  });
}
