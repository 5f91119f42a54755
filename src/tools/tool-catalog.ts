/**
 * The Tool Catalog: the tools the model sees (and may call) in one step. Rebuilt every step from
 * `Agent.spec.tools` (in declaration order) followed by the dynamic tools in the registry; step middleware
 * may then add, remove or reorder items. Items are fresh copies, so editing them never touches the registry.
 */
import type { ToolResource } from "../config/types.ts";
import { SystemError } from "../shared/errors.ts";
import { buildToolName } from "./naming.ts";
import type { ToolRegistry } from "./tool-registry.ts";
import type { ToolCatalogItem } from "./types.ts";

export function buildCatalog(options: {
  registry: ToolRegistry;
  agentTools: readonly ToolResource[];
}): ToolCatalogItem[] {
  const { registry, agentTools } = options;
  const catalog: ToolCatalogItem[] = [];
  const seen = new Set<string>();
  for (const resource of agentTools) {
    for (const spec of resource.spec.exports) {
      const name = buildToolName(resource, spec.name);
      if (seen.has(name)) continue;
      const entry = registry.get(name);
      if (entry === undefined) {
        throw new SystemError(
          "E_TOOL_NOT_REGISTERED",
          `Agent tool ${name} is not in the registry; build the registry from every Tool the agent uses`,
        );
      }
      seen.add(name);
      catalog.push({ ...entry.item });
    }
  }
  for (const item of registry.dynamicItems()) {
    if (seen.has(item.name)) continue;
    seen.add(item.name);
    catalog.push({ ...item });
  }
  return catalog;
}
