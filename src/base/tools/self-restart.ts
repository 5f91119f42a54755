/**
 * Built-in `self-restart`: asks the orchestrator to validate the bundle on disk and restart after this
 * turn. An invalid bundle becomes an error (E_SELF_RESTART_INVALID_BUNDLE) listing every issue, so the model
 * can fix the files and try again; the running version keeps going.
 */
import { ToolFault } from "../../tools/tool-errors.ts";
import type { ToolHandler } from "../../tools/types.ts";

export const handlers: Record<string, ToolHandler> = {
  request: async (ctx, input) => {
    const reason = typeof input.reason === "string" && input.reason !== "" ? input.reason : "requested by the agent";
    const result = await ctx.runtime.restart({ reason });
    if (!result.accepted) {
      const issues = result.issues.map((issue) => `- ${issue.path}: ${issue.message} (${issue.code})`);
      throw new ToolFault(
        "E_SELF_RESTART_INVALID_BUNDLE",
        `The bundle on disk is invalid, so the swarm keeps running the current version. ${issues.length} issue(s):\n${issues.join("\n") || "- (no details reported)"}`,
        { suggestion: "Fix the listed files, then call self-restart__request again." },
      );
    }
    return {
      accepted: true,
      reason,
      note: "The bundle is valid; the swarm restarts with it after this turn completes. Conversations are kept.",
    };
  },
};
