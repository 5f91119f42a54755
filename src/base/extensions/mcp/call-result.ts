/**
 * An MCP `tools/call` result as the tool's output: the structured content when the server sends it; else the
 * text, joined, when every block is text; else the blocks as JSON, with binary data (images, audio, blobs)
 * described instead of inlined, since base64 means nothing to the model and would fill its context.
 * `isError: true` becomes E_MCP_TOOL_ERROR carrying the server's text. Size caps and errorMessageLimit are
 * applied afterwards by the tool layer, as for any tool.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../../../shared/json.ts";
import { mcpFault } from "./mcp-fault.ts";

/** The fields of a CallToolResult this mapping reads (also the legacy `toolResult` form). */
export interface CallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
}

export function callResultOutput(result: CallResult, options: { server: string; tool: string }): JsonValue {
  const blocks = (Array.isArray(result.content) ? result.content : []).map(describeBlock);
  if (result.isError === true) {
    const text =
      textOf(blocks) ??
      (isJsonObject(result.structuredContent as JsonValue) ? JSON.stringify(result.structuredContent) : "");
    throw mcpFault(
      "toolError",
      text === "" ? `${options.server}/${options.tool} reported an error without a message` : text,
    );
  }
  if (isJsonObject(result.structuredContent as JsonValue)) return result.structuredContent as JsonObject;
  if (result.content === undefined && result.toolResult !== undefined) return result.toolResult as JsonValue;
  return textOf(blocks) ?? { content: blocks };
}

/** The blocks' text joined by newlines when every block is text; undefined otherwise. */
function textOf(blocks: JsonObject[]): string | undefined {
  if (!blocks.every((block) => block.type === "text" && typeof block.text === "string")) return undefined;
  return blocks.map((block) => block.text as string).join("\n");
}

function describeBlock(block: unknown): JsonObject {
  if (!isJsonObject(block as JsonValue)) return { type: "unknown" };
  const value = block as JsonObject;
  switch (value.type) {
    case "text":
      return { type: "text", text: typeof value.text === "string" ? value.text : "" };
    case "image":
    case "audio":
      return { type: value.type, ...pick(value, ["mimeType"]), omitted: binaryNote(value.data) };
    case "resource": {
      const resource = isJsonObject(value.resource as JsonValue) ? (value.resource as JsonObject) : {};
      return {
        type: "resource",
        ...pick(resource, ["uri", "mimeType", "text"]),
        ...(typeof resource.blob === "string" ? { omitted: binaryNote(resource.blob) } : {}),
      };
    }
    case "resource_link":
      return { type: "resource_link", ...pick(value, ["uri", "name", "title", "description", "mimeType"]) };
    default:
      return { type: typeof value.type === "string" ? value.type : "unknown" };
  }
}

function binaryNote(data: JsonValue | undefined): string {
  const bytes = typeof data === "string" ? Math.floor((data.length * 3) / 4) : 0;
  return `binary content of about ${bytes} bytes, not shown`;
}

function pick(source: JsonObject, keys: readonly string[]): JsonObject {
  const picked: JsonObject = {};
  for (const key of keys) if (typeof source[key] === "string") picked[key] = source[key];
  return picked;
}
