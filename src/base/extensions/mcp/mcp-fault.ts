/**
 * The errors an MCP tool call ends with, as ToolFaults the one tool-error formatter turns into the model's
 * `{status: "error", error: {code, name, message, suggestion}}`: the server reported an error
 * (E_MCP_TOOL_ERROR), could not be reached (E_MCP_UNAVAILABLE), or did not answer in time (E_TOOL_TIMEOUT).
 */
import { TOOL_ERROR_CODES, ToolFault } from "../../../tools/tool-errors.ts";

const KINDS = {
  toolError: { code: TOOL_ERROR_CODES.mcpToolError, name: "McpToolError" },
  unavailable: { code: TOOL_ERROR_CODES.mcpUnavailable, name: "McpUnavailableError" },
  timeout: { code: TOOL_ERROR_CODES.timeout, name: "ToolTimeoutError" },
} as const;

export function mcpFault(kind: keyof typeof KINDS, message: string, suggestion?: string): ToolFault {
  const fault = new ToolFault(KINDS[kind].code, message, suggestion === undefined ? {} : { suggestion });
  fault.name = KINDS[kind].name;
  return fault;
}
