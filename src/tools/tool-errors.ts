/**
 * The one place that formats tool errors the model reads: stable codes, default names, `helpUrl`, and
 * `error.message` (and `suggestion`) cut to the tool's `errorMessageLimit` with `... (truncated)`
 * (seed 003 §8.4). Also `ToolFault`, the error class tool authors throw to choose a code and suggestion.
 */
import { describe, GoondanError } from "../shared/errors.ts";
import type { ToolError, ToolResult } from "./types.ts";

export const TOOL_ERROR_CODES = {
  failed: "E_TOOL",
  invalidArgs: "E_TOOL_INVALID_ARGS",
  notInCatalog: "E_TOOL_NOT_IN_CATALOG",
  notFound: "E_TOOL_NOT_FOUND",
  timeout: "E_TOOL_TIMEOUT",
  /** The call was cancelled from outside (shutdown): `ctx.signal` fired before the handler finished. */
  cancelled: "E_TOOL_CANCELLED",
  /** The agent process died (crashed, or was killed as unresponsive) while the call ran; told on redelivery. */
  interrupted: "E_TOOL_INTERRUPTED",
  /** A person denied the call (the `tool-approval` extension held it for a decision). */
  denied: "E_TOOL_DENIED",
  /** Nobody decided on a held call before its `timeoutSeconds` passed. */
  approvalTimeout: "E_TOOL_APPROVAL_TIMEOUT",
  /** An MCP server answered the call with an error (`isError`, or a JSON-RPC error such as an unknown tool). */
  mcpToolError: "E_MCP_TOOL_ERROR",
  /** An MCP server could not be reached for the call: it cannot start, died, or is being restarted. */
  mcpUnavailable: "E_MCP_UNAVAILABLE",
} as const;

export const DEFAULT_ERROR_MESSAGE_LIMIT = 1000;
export const TRUNCATION_SUFFIX = "... (truncated)";
export const HELP_URL_BASE = "https://docs.goondan.ai/errors/";
/** `code` and `name` are labels, not prose: cut them much shorter than messages. */
const MAX_LABEL_LENGTH = 200;

const DEFAULT_NAMES: Record<string, string> = {
  E_TOOL: "Error",
  E_TOOL_INVALID_ARGS: "ToolInvalidArgsError",
  E_TOOL_NOT_IN_CATALOG: "ToolNotInCatalogError",
  E_TOOL_NOT_FOUND: "ToolNotFoundError",
  E_TOOL_TIMEOUT: "ToolTimeoutError",
  E_TOOL_CANCELLED: "ToolCancelledError",
  E_TOOL_INTERRUPTED: "ToolInterruptedError",
  E_TOOL_DENIED: "ToolDeniedError",
  E_TOOL_APPROVAL_TIMEOUT: "ToolApprovalTimeoutError",
  E_MCP_TOOL_ERROR: "McpToolError",
  E_MCP_UNAVAILABLE: "McpUnavailableError",
};

/** Seed 003 §8.4: keep `limit` characters in all, the last ones being `... (truncated)`. */
export function truncateErrorMessage(message: string, limit: number): string {
  if (message.length <= limit) return message;
  if (limit <= TRUNCATION_SUFFIX.length) return message.slice(0, Math.max(0, limit));
  return message.slice(0, limit - TRUNCATION_SUFFIX.length) + TRUNCATION_SUFFIX;
}

/** goondan's codes: `E_*`, including the inter-agent runtime's (E_AGENT_*, E_ORCHESTRATOR_*, call-chain refusals). */
const GOONDAN_CODE = /^E_[A-Z0-9_]+$/;

/** `https://docs.goondan.ai/errors/<CODE>` for goondan's codes; E_TOOL's page for foreign ones (ENOENT…). */
export function helpUrlFor(code: string): string {
  return HELP_URL_BASE + (GOONDAN_CODE.test(code) ? code : TOOL_ERROR_CODES.failed);
}

export interface ToolErrorInput {
  code: string;
  name?: string;
  message: string;
  suggestion?: string;
  /** Default: `helpUrlFor(code)`. */
  helpUrl?: string;
}

/** Builds `{status: "error", error}` with the message and suggestion cut to `limit` characters. */
export function toolError(input: ToolErrorInput, options: { limit?: number } = {}): ToolResult {
  const limit = options.limit ?? DEFAULT_ERROR_MESSAGE_LIMIT;
  const code = truncateErrorMessage(String(input.code), MAX_LABEL_LENGTH);
  const error: ToolError = {
    code,
    name: truncateErrorMessage(String(input.name ?? DEFAULT_NAMES[code] ?? "Error"), MAX_LABEL_LENGTH),
    message: truncateErrorMessage(String(input.message), limit),
  };
  if (input.suggestion !== undefined && input.suggestion !== "") {
    error.suggestion = truncateErrorMessage(String(input.suggestion), limit);
  }
  error.helpUrl = input.helpUrl !== undefined && input.helpUrl.length <= 2000 ? input.helpUrl : helpUrlFor(code);
  return { status: "error", error };
}

/**
 * Thrown by a tool to pick the code and suggestion the model sees:
 * `throw new ToolFault("E_FS_NOT_FOUND", "no such file: a.txt", { suggestion: "list the directory first" })`.
 */
export class ToolFault extends GoondanError {
  readonly blame = "tool" as const;
}

/** Any thrown value as a tool error input: its own code (and suggestion) when it carries one, else `fallbackCode`. */
export function describeThrown(value: unknown, fallbackCode: string = TOOL_ERROR_CODES.failed): ToolErrorInput {
  const { code, ...described } = describe(value);
  return { code: code ?? fallbackCode, ...described };
}
