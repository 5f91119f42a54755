/**
 * One server's MCP tools as catalog items: named `<server>__<tool>`, described by the tool's description (or
 * title), with its input JSON Schema as `parameters` (minus `$schema`: the schema is read as draft-07, which
 * MCP servers' schemas are written for) and `source: {type: "mcp", name, mcp: {extensionName, serverName}}`.
 * The server's `tools` allow-list picks which ones. A tool the model could not call is refused with the reason:
 * a name outside `[A-Za-z0-9_-]` or over 64 characters, or a schema that does not compile. An allow-listed
 * name the server does not offer is reported too, so a typo is seen.
 */
import { compileArgsValidator } from "../../../tools/args-validator.ts";
import { buildToolName, isValidFullToolName } from "../../../tools/naming.ts";
import type { JsonObject } from "../../../shared/json.ts";
import type { ToolCatalogItem } from "../../../tools/types.ts";
import type { McpTool } from "./server-connection.ts";

export interface ServerToolItem {
  /** The name the server knows the tool by. */
  toolName: string;
  item: ToolCatalogItem;
  /** The server says the tool only reads (`readOnlyHint`) or may run twice to no further effect (`idempotentHint`). */
  idempotent: boolean;
}

export interface RefusedTool {
  tool: string;
  reason: string;
}

export function serverToolItems(options: {
  extensionName: string;
  serverName: string;
  allow?: readonly string[];
  tools: readonly McpTool[];
}): { items: ServerToolItem[]; refused: RefusedTool[] } {
  const { extensionName, serverName, allow } = options;
  const items: ServerToolItem[] = [];
  const refused: RefusedTool[] = [];
  const offered = new Set(options.tools.map((tool) => tool.name));
  for (const tool of options.tools) {
    if (allow !== undefined && !allow.includes(tool.name)) continue;
    const name = buildToolName(serverName, tool.name);
    if (!isValidFullToolName(name)) {
      refused.push({
        tool: tool.name,
        reason: `"${name}" is not a name models accept (letters, digits, '-' and '_', at most 64 characters in all)`,
      });
      continue;
    }
    const parameters = toParameters(tool.inputSchema as JsonObject);
    try {
      compileArgsValidator({ schema: parameters, toolName: name });
    } catch (error) {
      refused.push({
        tool: tool.name,
        reason: `its input schema is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
      });
      continue;
    }
    const description = tool.description ?? tool.title;
    items.push({
      toolName: tool.name,
      idempotent: tool.annotations?.readOnlyHint === true || tool.annotations?.idempotentHint === true,
      item: {
        name,
        ...(description === undefined ? {} : { description }),
        parameters,
        source: { type: "mcp", name: extensionName, mcp: { extensionName, serverName } },
      },
    });
  }
  for (const wanted of allow ?? []) {
    if (offered.has(wanted)) continue;
    const names = [...offered];
    const shown =
      names.length === 0
        ? "none"
        : `${names.slice(0, 20).join(", ")}${names.length > 20 ? `, and ${names.length - 20} more` : ""}`;
    refused.push({ tool: wanted, reason: `listed in tools, but the server offers no such tool (it offers: ${shown})` });
  }
  return { items, refused };
}

function toParameters(schema: JsonObject | undefined): JsonObject {
  const { $schema: _ignored, ...rest } = schema ?? {};
  return { ...rest, type: "object" };
}
