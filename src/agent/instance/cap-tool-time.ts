/**
 * Agent `spec.limits.toolCallSeconds` (docs/limits.md#resource-limits): no export of the agent's tools may run
 * longer, whatever its own `timeoutMs` says. A call past it is cancelled and answered `E_TOOL_TIMEOUT`, as any tool
 * timeout is.
 */
import type { ToolResource } from "../../config/types.ts";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../../tools/tool-registry.ts";

export function capToolTime(tools: ToolResource[], seconds: number | undefined): ToolResource[] {
  if (seconds === undefined) return tools;
  const limitMs = Math.round(seconds * 1000);
  return tools.map((tool) => ({
    ...tool,
    spec: {
      ...tool.spec,
      exports: tool.spec.exports.map((item) => ({
        ...item,
        timeoutMs: Math.min(item.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS, limitMs),
      })),
    },
  }));
}
