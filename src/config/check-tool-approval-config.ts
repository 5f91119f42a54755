/**
 * The built-in `tool-approval` extension's config, checked where an Agent uses it (`spec.extensions[i].config`, as
 * written) against its schema, so a misspelt field or a missing `tools` list is a `goondan validate` error naming
 * the path rather than a guard that silently holds nothing.
 */
import { builtinExtensionUses } from "./check-mcp-config.ts";
import type { IssueList, PathSegment } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import { validateValue } from "./schema-validator.ts";
import { TOOL_APPROVAL_EXTENSION_NAME, toolApprovalConfigSchema } from "./schemas/tool-approval-config.ts";

/** Run after checkRefs, which marks the refs that resolve to built-ins. */
export function checkToolApprovalConfig(options: { resources: readonly LoadedResource[]; issues: IssueList }): void {
  for (const { loaded, index, config } of builtinExtensionUses(options.resources, TOOL_APPROVAL_EXTENSION_NAME)) {
    const at: PathSegment[] = ["spec", "extensions", index, "config"];
    validateValue({
      schema: toolApprovalConfigSchema,
      value: config ?? {},
      site: loaded.site,
      at,
      issues: options.issues,
    });
  }
}
