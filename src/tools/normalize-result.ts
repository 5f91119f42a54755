/**
 * Whatever a toolCall middleware chain returned becomes a well-formed, JSON-safe ToolResult: `ok` and `pending`
 * outputs are converted and capped, an `error` is re-formatted by toolError, anything else becomes
 * InvalidToolResult.
 */
import { isJsonObject } from "../shared/json.ts";
import { DEFAULT_ERROR_MESSAGE_LIMIT, TOOL_ERROR_CODES, toolError } from "./tool-errors.ts";
import { DEFAULT_MAX_OUTPUT_BYTES, toJsonOutput } from "./tool-output.ts";
import type { ToolResult } from "./types.ts";

/** Whatever the chain returned (middleware may return anything) becomes a well-formed, JSON-safe ToolResult. */
export function normalizeResult(
  result: unknown,
  options: { limit?: number; maxOutputBytes?: number } = {},
): ToolResult {
  const limit = options.limit ?? DEFAULT_ERROR_MESSAGE_LIMIT;
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (isJsonObject(result as never)) {
    const record = result as Record<string, unknown>;
    if (record.status === "ok") {
      const output = toJsonOutput(record.output, { maxBytes });
      if (output.ok) return { status: "ok", output: output.value };
      return toolError({ code: TOOL_ERROR_CODES.failed, name: "ToolOutputError", message: output.message }, { limit });
    }
    if (record.status === "pending" && typeof record.handle === "string" && record.handle !== "") {
      if (record.output === undefined) return { status: "pending", handle: record.handle };
      const output = toJsonOutput(record.output, { maxBytes });
      if (output.ok) return { status: "pending", handle: record.handle, output: output.value };
      return toolError({ code: TOOL_ERROR_CODES.failed, name: "ToolOutputError", message: output.message }, { limit });
    }
    if (record.status === "error" && typeof record.error === "object" && record.error !== null) {
      const error = record.error as Record<string, unknown>;
      return toolError(
        {
          code: typeof error.code === "string" && error.code !== "" ? error.code : TOOL_ERROR_CODES.failed,
          ...(typeof error.name === "string" ? { name: error.name } : {}),
          message: typeof error.message === "string" ? error.message : "the tool failed without a message",
          ...(typeof error.suggestion === "string" ? { suggestion: error.suggestion } : {}),
          ...(typeof error.helpUrl === "string" ? { helpUrl: error.helpUrl } : {}),
        },
        { limit },
      );
    }
  }
  return toolError(
    {
      code: TOOL_ERROR_CODES.failed,
      name: "InvalidToolResult",
      message: "a toolCall middleware returned something that is not a ToolResult ({status: ok | pending | error})",
    },
    { limit },
  );
}
