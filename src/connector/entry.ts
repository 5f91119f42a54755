/**
 * The connector child's main (`bun connector-entry.ts --connection <name>`): waits for `connector_start`
 * (entry path, resolved config and secrets; never in argv), imports the entry module, accepts either
 * shape (`export default async function (ctx)` as in the public Goondan project, or
 * `export async function start(ctx)`), and runs it. It stops on `shutdown` or when the orchestrator
 * goes away; a start function that throws ends the process with a `fatal` message and exit code 1.
 */
import "../tools/goondan-module-resolver.ts"; // first: connector files may import "goondan"
import {
  envelope,
  isParentMessage,
  ORCHESTRATOR,
  type ChildMessage,
  type ConnectorStartPayload,
  type ParentMessage,
} from "../protocol/ipc-messages.ts";
import { createLogger } from "../shared/logger.ts";
import { describe } from "../shared/errors.ts";
import { hideProcessSecrets } from "../tools/hide-process-secrets.ts";
import {
  createConnectorContext,
  type ConnectorContext,
  type ConnectorContextHost,
  type ConnectorLogger,
} from "./child/connector-context.ts";

type StartFunction = (ctx: ConnectorContext) => unknown;

/** The entry module's start function, whichever of the accepted shapes it uses. */
export function findStartFunction(module: Record<string, unknown>): StartFunction | undefined {
  const candidate = typeof module.start === "function" ? module.start : module.default;
  if (typeof candidate === "function") return candidate as StartFunction;
  if (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof (candidate as { start?: unknown }).start === "function"
  ) {
    const holder = candidate as { start: StartFunction };
    return (ctx) => holder.start(ctx);
  }
  return undefined;
}

function consoleLike(name: string, connection: string): ConnectorLogger {
  const pinoLogger = createLogger(`connector:${name}`, { bindings: { connection }, destination: 2 });
  const text = (args: unknown[]) =>
    args
      .map((arg) => (typeof arg === "string" ? arg : arg instanceof Error ? arg.message : JSON.stringify(arg)))
      .join(" ");
  return {
    debug: (...args) => pinoLogger.debug(text(args)),
    info: (...args) => pinoLogger.info(text(args)),
    warn: (...args) => pinoLogger.warn(text(args)),
    error: (...args) => pinoLogger.error(text(args)),
  };
}

function main(): void {
  const connectionFlag = process.argv.indexOf("--connection");
  const connection = connectionFlag >= 0 ? (process.argv[connectionFlag + 1] ?? "connector") : "connector";
  const self = `connector:${connection}`;
  const send = (message: ChildMessage) => {
    try {
      process.send?.(message);
    } catch {
      // the orchestrator is gone; the disconnect handler ends the process
    }
  };
  let host: ConnectorContextHost | undefined;
  let stopping = false;

  const stop = async (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    await host?.shutdown(reason);
    send(envelope("shutdown_ack", self, ORCHESTRATOR, { reason }));
    process.exit(exitCode);
  };

  const start = async (payload: ConnectorStartPayload) => {
    const logger = consoleLike(payload.connector, payload.connection);
    host = createConnectorContext({
      start: payload,
      logger,
      send: (event) => send(envelope("connector_event", self, ORCHESTRATOR, event)),
      sendApproval: (request) => send(envelope("connector_approval", self, ORCHESTRATOR, request)),
    });
    try {
      // The connector holds its connection's secrets: keep them out of same-user processes' reach (/proc).
      await hideProcessSecrets();
      const module = (await import(payload.entry)) as Record<string, unknown>;
      const startFunction = findStartFunction(module);
      if (!startFunction)
        throw Object.assign(new Error(`${payload.entry} exports neither a default function nor start(ctx)`), {
          code: "E_CONNECTOR_NO_ENTRY",
        });
      send(envelope("connector_ready", self, ORCHESTRATOR, { pid: process.pid, connection: payload.connection }));
      await startFunction(host.context);
    } catch (error) {
      const described = describe(error);
      send(
        envelope("fatal", self, ORCHESTRATOR, {
          code: described.code ?? "E_CONNECTOR_START_FAILED",
          message: described.message,
        }),
      );
      logger.error("connector failed", described.message);
      process.exit(1);
    }
  };

  process.on("message", (message: unknown) => {
    if (!isParentMessage(message)) return;
    const typed = message as ParentMessage;
    if (typed.type === "connector_start") void start(typed.payload);
    else if (typed.type === "connector_ack" || typed.type === "connector_progress" || typed.type === "connector_reply")
      host?.handle(typed.type, typed.payload);
    else if (typed.type === "connector_approval_result") host?.handleApproval(typed.payload);
    else if (typed.type === "shutdown") void stop(typed.payload.reason, 0);
  });
  process.on("disconnect", () => void stop("orchestrator disconnected", 0));
  // Ctrl+C reaches the whole process group: the orchestrator's shutdown stops us in order.
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => void stop("SIGTERM", 0));
}

if (import.meta.main) main();
