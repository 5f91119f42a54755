/**
 * Built-in extension `tool-approval`: a toolCall middleware that holds the calls of the tools named in
 * `config.tools` (globs on full tool names: `bash__exec`, `files__*`) for a person's decision. A held call stops the
 * turn (`awaiting_approval`, durable: see agent/loop/tool-approvals.ts); people decide through `GET/POST
 * /v1/approvals`, `goondan approve` or the cli connector's prompt. When the turn resumes the middleware finds the
 * decision: approve → the tool runs; deny → E_TOOL_DENIED; no decision within `timeoutSeconds` →
 * E_TOOL_APPROVAL_TIMEOUT, each with the reason, and the turn goes on. `approvers` limits who may decide.
 */
import type { ExtensionApi, JsonObject } from "../../index.ts";
import { TOOL_ERROR_CODES, toolError } from "../../tools/tool-errors.ts";
import type { ToolResult } from "../../tools/types.ts";
import { matchesToolGlob, readToolApprovalConfig } from "./tool-approval-config.ts";

export function register(api: ExtensionApi, config: JsonObject): void {
  const settings = readToolApprovalConfig(config);
  if (settings.tools.length === 0) return;
  api.pipeline.register(
    "toolCall",
    async (ctx) => {
      if (!settings.tools.some((pattern) => matchesToolGlob(pattern, ctx.toolName))) return ctx.next();
      const approvals = api.approvals;
      if (approvals === undefined) {
        return toolError({
          code: TOOL_ERROR_CODES.denied,
          message: `${ctx.toolName} needs a person's approval, and this agent cannot ask for one.`,
        });
      }
      const decided = approvals.decision(ctx.toolCallId);
      if (decided === undefined) {
        return approvals.hold({
          toolCallId: ctx.toolCallId,
          toolName: ctx.toolName,
          args: ctx.args,
          ...(settings.timeoutSeconds === undefined ? {} : { timeoutSeconds: settings.timeoutSeconds }),
          ...(settings.approvers === undefined ? {} : { approvers: settings.approvers }),
        });
      }
      if (decided.decision === "approve") return ctx.next();
      return refusal(ctx.toolName, decided.decision, decided.reason);
    },
    // Outermost: nothing else runs for a call that is not allowed yet.
    { priority: -1000 },
  );
}

function refusal(toolName: string, decision: "deny" | "timeout", reason: string | undefined): ToolResult {
  const because = reason === undefined || reason === "" ? "" : `: ${reason}`;
  if (decision === "deny") {
    return toolError({
      code: TOOL_ERROR_CODES.denied,
      message: `A person denied this call of ${toolName}${because}. It did not run.`,
      suggestion: "Do not retry the same call; ask the user how to proceed or do without it.",
    });
  }
  return toolError({
    code: TOOL_ERROR_CODES.approvalTimeout,
    message: `Nobody approved this call of ${toolName} in time${because}. It did not run.`,
    suggestion: "Tell the user the call is waiting for their approval, or do without it.",
  });
}
