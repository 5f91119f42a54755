/**
 * A bridge to real MCP servers inside the test process: the `mcp` extension's startMcpBridge wired to a real
 * ToolRegistry the way the agent wires `api.tools`, a `call` that runs a model tool call through the real
 * executeToolCall (catalog gate, ajv, timeout, error formatter), and the log lines, at debug level.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMcpBridge, type McpBridge } from "../../../src/base/extensions/mcp/mcp-bridge.ts";
import type { RestartBackoff } from "../../../src/base/extensions/mcp/server-connection.ts";
import { readServerSpecs } from "../../../src/base/extensions/mcp/server-spec.ts";
import type { JsonObject } from "../../../src/shared/json.ts";
import { createLogger } from "../../../src/shared/logger.ts";
import { executeToolCall } from "../../../src/tools/execute-tool-call.ts";
import { buildCatalog } from "../../../src/tools/tool-catalog.ts";
import { ToolRegistry } from "../../../src/tools/tool-registry.ts";
import type { ToolCatalogItem, ToolResult } from "../../../src/tools/types.ts";
import type { Defer } from "../../helpers/cleanups.ts";
import { invocationContext } from "../../tools/helpers.ts";

export const FAST_BACKOFF: RestartBackoff = { initialMs: 50, maxMs: 200, stableMs: 60_000 };

export interface McpHarness {
  registry: ToolRegistry;
  bridge: McpBridge;
  logs: string[];
  catalog(): ToolCatalogItem[];
  call(name: string, args: unknown, options?: { signal?: AbortSignal }): Promise<ToolResult>;
}

export async function startHarness(options: {
  servers: Record<string, JsonObject>;
  defer: Defer;
  backoff?: RestartBackoff;
}): Promise<McpHarness> {
  const registry = new ToolRegistry();
  const logs: string[] = [];
  const logger = createLogger("agent", {
    level: "debug",
    destination: { write: (line: string) => void logs.push(line) },
  });
  const bundleDir = mkdtempSync(join(tmpdir(), "goondan-mcp-"));
  options.defer(() => rmSync(bundleDir, { recursive: true, force: true }));
  const bridge = startMcpBridge({
    extensionName: "mcp",
    servers: readServerSpecs({ servers: options.servers }, { bundleDir }),
    tools: {
      register: (item, handler, toolOptions) =>
        registry.register(item, handler, {
          source: { type: "extension", name: "mcp" },
          ...(toolOptions?.timeoutMs === undefined ? {} : { timeoutMs: toolOptions.timeoutMs }),
        }),
      unregister: (name) => registry.unregister(name, { owner: "mcp" }),
    },
    logger,
    backoff: options.backoff ?? FAST_BACKOFF,
  });
  options.defer(() => bridge.stop());
  await bridge.started;
  let calls = 0;
  const catalog = () => buildCatalog({ registry, agentTools: [] });
  return {
    registry,
    bridge,
    logs,
    catalog,
    call: (name, args, callOptions = {}) =>
      executeToolCall({
        call: { id: `call_${++calls}`, name, args },
        catalog: catalog(),
        registry,
        context: invocationContext(callOptions.signal === undefined ? {} : { parentSignal: callOptions.signal }),
      }),
  };
}

export function okOutput(result: ToolResult): unknown {
  if (result.status !== "ok") throw new Error(`expected an ok result, got ${JSON.stringify(result)}`);
  return result.output;
}

export function errorOf(result: ToolResult) {
  if (result.status !== "error") throw new Error(`expected an error result, got ${JSON.stringify(result)}`);
  return result.error;
}
