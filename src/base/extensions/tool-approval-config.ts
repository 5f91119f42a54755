/**
 * The `tool-approval` extension's config as the middleware reads it (`goondan validate` checks its shape first,
 * config/check-tool-approval-config.ts), and the tool-name globs it matches: `*` any run of characters, `?` one.
 */
import type { JsonObject } from "../../index.ts";

export interface ToolApprovalSettings {
  tools: string[];
  timeoutSeconds?: number;
  approvers?: string[];
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string" && item !== "") : [];

export function readToolApprovalConfig(config: JsonObject): ToolApprovalSettings {
  const timeout = config.timeoutSeconds;
  const approvers = strings(config.approvers);
  return {
    tools: strings(config.tools),
    ...(typeof timeout === "number" && timeout > 0 ? { timeoutSeconds: timeout } : {}),
    ...(approvers.length === 0 ? {} : { approvers }),
  };
}

export function matchesToolGlob(pattern: string, toolName: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${source}$`).test(toolName);
}
