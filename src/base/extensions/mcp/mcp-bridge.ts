/**
 * The `mcp` extension's working part: one McpServerConnection per configured server, and that server's tools
 * kept registered in the agent's Tool Registry through `api.tools`. Whenever a server hands over its tool list
 * (at connect, reconnect, and `notifications/tools/list_changed`), tools that vanished or changed are
 * unregistered and new or changed ones registered, so the next step's catalog shows the list as it is. A
 * server that is down keeps its tools: calling one answers E_MCP_UNAVAILABLE until it is back. Each tool's
 * deadline is its server's `timeoutMs`; past it the registry answers E_TOOL_TIMEOUT and fires ctx.signal,
 * which cancels the request at the server.
 */
import type { Clock } from "../../../shared/clock.ts";
import type { Logger } from "../../../shared/logger.ts";
import type { ToolCatalogItem, ToolHandler, ToolRegisterOptions } from "../../../tools/types.ts";
import { callResultOutput } from "./call-result.ts";
import {
  McpServerConnection,
  type McpTool,
  type RestartBackoff,
  type ServerConnectionOptions,
} from "./server-connection.ts";
import type { McpServerSpec } from "./server-spec.ts";
import { serverToolItems } from "./server-tools.ts";

/** The part of `api.tools` the bridge needs. */
export interface BridgeTools {
  register(item: ToolCatalogItem, handler: ToolHandler, options?: ToolRegisterOptions): void;
  unregister(name: string): boolean;
}

export interface McpBridgeOptions {
  extensionName: string;
  servers: readonly McpServerSpec[];
  tools: BridgeTools;
  logger: Logger;
  clock?: Clock;
  backoff?: RestartBackoff;
  createTransport?: ServerConnectionOptions["createTransport"];
}

export interface McpBridge {
  readonly connections: ReadonlyMap<string, McpServerConnection>;
  /** Resolves when every server's first connection attempt has succeeded or failed. */
  readonly started: Promise<void>;
  /** Stops every server and unregisters their tools. */
  stop(): Promise<void>;
}

export function startMcpBridge(options: McpBridgeOptions): McpBridge {
  const connections = new Map<string, McpServerConnection>();
  const registered = new Map<string, Map<string, string>>();
  for (const spec of options.servers) {
    const logger = options.logger.child({ mcpServer: spec.name });
    const own = new Map<string, string>(); // registered tool name → its item as JSON, to notice changes
    registered.set(spec.name, own);
    const connection: McpServerConnection = new McpServerConnection({
      spec,
      logger: options.logger,
      onTools: (tools) => syncTools({ spec, tools, own, connection, logger, options }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
      ...(options.createTransport === undefined ? {} : { createTransport: options.createTransport }),
    });
    connections.set(spec.name, connection);
  }
  const started = Promise.all([...connections.values()].map((connection) => connection.start())).then(() => undefined);
  return {
    connections,
    started,
    stop: async () => {
      await Promise.all([...connections.values()].map((connection) => connection.stop()));
      for (const own of registered.values()) {
        for (const name of own.keys()) options.tools.unregister(name);
        own.clear();
      }
    },
  };
}

function syncTools(context: {
  spec: McpServerSpec;
  tools: McpTool[];
  own: Map<string, string>;
  connection: McpServerConnection;
  logger: Logger;
  options: McpBridgeOptions;
}): void {
  const { spec, own, connection, logger, options } = context;
  const { items, refused } = serverToolItems({
    extensionName: options.extensionName,
    serverName: spec.name,
    tools: context.tools,
    ...(spec.tools === undefined ? {} : { allow: spec.tools }),
  });
  for (const problem of refused)
    logger.warn({ tool: problem.tool, reason: problem.reason }, "MCP tool not offered to the model");
  const wanted = new Map(items.map((entry) => [entry.item.name, { ...entry, json: JSON.stringify(entry.item) }]));
  for (const [name, json] of own) {
    if (wanted.get(name)?.json === json) continue;
    options.tools.unregister(name);
    own.delete(name);
  }
  const added: string[] = [];
  for (const [name, entry] of wanted) {
    if (own.has(name)) continue;
    const handler: ToolHandler = async (ctx, input) => {
      const result = await connection.callTool({ name: entry.toolName, args: input, signal: ctx.signal });
      // A tool that changed the server's tool list announced it before answering: let the next step see it.
      await connection.toolsSettled();
      return callResultOutput(result, { server: spec.name, tool: entry.toolName });
    };
    try {
      options.tools.register(entry.item, handler, {
        timeoutMs: spec.timeoutMs,
        ...(entry.idempotent ? { idempotent: true } : {}),
      });
    } catch (error) {
      // A name already taken by another tool of this agent, most likely.
      logger.warn(
        { tool: entry.toolName, reason: error instanceof Error ? error.message : String(error) },
        "MCP tool not offered to the model",
      );
      continue;
    }
    own.set(name, entry.json);
    added.push(name);
  }
  if (added.length > 0) logger.info({ tools: added }, "MCP tools registered");
}
