/**
 * The tool layer's API for the agent process: build the registry from Tool resources, rebuild the catalog
 * every step, run each model tool call through executeToolCall (which never throws for a tool fault). Process
 * entries call hideProcessSecrets() at startup so commands run by tools cannot read their /proc secrets.
 */
export {
  buildToolName,
  isValidExportName,
  isValidFullToolName,
  isValidToolPartName,
  parseToolName,
  TOOL_NAME_SEPARATOR,
} from "./naming.ts";
export {
  DEFAULT_TOOL_TIMEOUT_MS,
  ToolRegistry,
  type RegisterToolOptions,
  type ToolRegistryEntry,
} from "./tool-registry.ts";
export { buildCatalog } from "./tool-catalog.ts";
export {
  executeToolCall,
  type ExecuteToolCallOptions,
  type ToolCallMiddleware,
  type ToolInvocationContext,
} from "./execute-tool-call.ts";
export { normalizeResult } from "./normalize-result.ts";
export { settleCompletion, type PendingCompletion, type PendingCompletionListener } from "./pending-completion.ts";
export {
  DEFAULT_ERROR_MESSAGE_LIMIT,
  describeThrown,
  helpUrlFor,
  TOOL_ERROR_CODES,
  ToolFault,
  toolError,
  truncateErrorMessage,
  type ToolErrorInput,
} from "./tool-errors.ts";
export { isPendingHandle, pending, type PendingOptions } from "./pending.ts";
export { DEFAULT_MAX_OUTPUT_BYTES, toJsonOutput } from "./tool-output.ts";
export { resolveConfinedPath, PATH_OUTSIDE_ROOT } from "./workdir-path.ts";
export { hideProcessSecrets, processDumpable } from "./hide-process-secrets.ts";
export type * from "./types.ts";
