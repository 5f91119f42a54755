/**
 * The JSON Schema of the built-in `tool-approval` extension's config (an Agent's `extensions[]` item `config`):
 * `tools` (globs on full tool names), `timeoutSeconds?` and `approvers?`.
 */
import { nonEmptyString, type JsonSchema } from "./common.ts";

/** The built-in Extension this schema belongs to. */
export const TOOL_APPROVAL_EXTENSION_NAME = "tool-approval";

export const toolApprovalConfigSchema: JsonSchema = {
  type: "object",
  required: ["tools"],
  additionalProperties: false,
  properties: {
    tools: {
      type: "array",
      minItems: 1,
      items: { ...nonEmptyString, pattern: "^[A-Za-z0-9_*?-]+$" },
      description:
        "Tool names or globs (* any characters, ? one) whose calls wait for a person's decision, e.g. bash__exec, files__*.",
    },
    timeoutSeconds: {
      type: "number",
      exclusiveMinimum: 0,
      description: "Past this without a decision the call is answered E_TOOL_APPROVAL_TIMEOUT (default: no deadline).",
    },
    approvers: {
      type: "array",
      items: nonEmptyString,
      description:
        "Names of the HTTP API's credentials that may decide (the approver recorded is the deciding credential's name); default: any credential with the approve scope.",
    },
  },
};
