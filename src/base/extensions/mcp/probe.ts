/**
 * `goondan validate --probe-mcp` for one agent's `mcp` config: starts each server once (no retries), lists its
 * tools, names them as the agent would (`serverToolItems`, so refusals match what the agent logs), and stops
 * it again. Servers are probed in parallel, each bounded by its `connectTimeoutMs`.
 */
import { isJsonObject, type JsonObject } from "../../../shared/json.ts";
import { silentLogger, type Logger } from "../../../shared/logger.ts";
import { McpServerConnection, type McpTool } from "./server-connection.ts";
import { readServerSpecs, type McpServerSpec } from "./server-spec.ts";
import { serverToolItems, type RefusedTool } from "./server-tools.ts";

export interface ServerProbe {
  server: string;
  transport: "stdio" | "http";
  ok: boolean;
  /** The tool names the model would see (`<server>__<tool>`). */
  tools: string[];
  refused: RefusedTool[];
  /** Why the server could not be started, connected or listed (secrets redacted). */
  error?: string;
  durationMs: number;
}

export async function probeServers(
  config: JsonObject,
  options: { bundleDir: string; extensionName?: string; logger?: Logger },
): Promise<ServerProbe[]> {
  const servers = isJsonObject(config.servers) ? config.servers : {};
  const probeOptions = { extensionName: options.extensionName ?? "mcp", logger: options.logger ?? silentLogger() };
  return Promise.all(
    Object.entries(servers).map(async ([name, value]): Promise<ServerProbe> => {
      let spec: McpServerSpec | undefined;
      try {
        // One server at a time, so an env var unset for one does not hide the others.
        [spec] = readServerSpecs({ servers: { [name]: value } }, { bundleDir: options.bundleDir });
      } catch (error) {
        const transport = isJsonObject(value) && value.url !== undefined ? "http" : "stdio";
        return {
          server: name,
          transport,
          ok: false,
          tools: [],
          refused: [],
          error: error instanceof Error ? error.message : String(error),
          durationMs: 0,
        };
      }
      return probeServer(spec!, probeOptions);
    }),
  );
}

async function probeServer(
  spec: McpServerSpec,
  options: { extensionName: string; logger: Logger },
): Promise<ServerProbe> {
  const started = performance.now();
  let listed: McpTool[] | undefined;
  const connection = new McpServerConnection({ spec, logger: options.logger, onTools: (tools) => (listed = tools) });
  try {
    await connection.start();
  } finally {
    await connection.stop();
  }
  const base = {
    server: spec.name,
    transport: spec.transport.type,
    durationMs: Math.round(performance.now() - started),
  };
  if (listed === undefined)
    return {
      ...base,
      ok: false,
      tools: [],
      refused: [],
      error: connection.failure ?? "the server did not list its tools",
    };
  const { items, refused } = serverToolItems({
    extensionName: options.extensionName,
    serverName: spec.name,
    tools: listed,
    ...(spec.tools === undefined ? {} : { allow: spec.tools }),
  });
  return { ...base, ok: true, tools: items.map((entry) => entry.item.name), refused };
}
