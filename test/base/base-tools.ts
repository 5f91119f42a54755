/**
 * Test helpers for the built-in tools: the Tool resources of src/base/goondan.yaml built directly from
 * the YAML (defaults applied, no config loader), and a `callTool` that runs a call through the real
 * executeToolCall (catalog gate, schema validation, handler, result wrapping).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import type { ToolResource, ToolSpec } from "../../src/config/types.ts";
import type { JsonObject } from "../../src/shared/json.ts";
import { executeToolCall, type ToolInvocationContext } from "../../src/tools/execute-tool-call.ts";
import { buildCatalog } from "../../src/tools/tool-catalog.ts";
import { ToolRegistry } from "../../src/tools/tool-registry.ts";
import type { ToolResult } from "../../src/tools/types.ts";
import { invocationContext } from "../tools/helpers.ts";

export const BASE_DIR = resolve(import.meta.dir, "../../src/base");
export const BASE_FILE = resolve(BASE_DIR, "goondan.yaml");

/** Every Tool document of the built-in package, as the config plane would hand them over. */
export function baseToolResources(overrides: { config?: Record<string, JsonObject> } = {}): ToolResource[] {
  const documents = parseAllDocuments(readFileSync(BASE_FILE, "utf8"));
  const resources: ToolResource[] = [];
  documents.forEach((document, docIndex) => {
    const value = document.toJSON() as {
      kind?: string;
      metadata: { name: string };
      spec: Partial<ToolSpec> & { exports: ToolSpec["exports"] };
    };
    if (value?.kind !== "Tool") return;
    const name = value.metadata.name;
    const config = { ...(value.spec.config ?? {}), ...(overrides.config?.[name] ?? {}) };
    resources.push({
      apiVersion: "goondan.ai/v1",
      kind: "Tool",
      metadata: { name },
      spec: {
        entry: value.spec.entry!,
        errorMessageLimit: value.spec.errorMessageLimit ?? 1000,
        exports: value.spec.exports.map((spec) => ({
          ...spec,
          parameters: spec.parameters ?? { type: "object", properties: {} },
        })),
        config,
      },
      source: { file: BASE_FILE, docIndex, package: "@goondan/base", baseDir: BASE_DIR },
    });
  });
  return resources;
}

export interface BaseToolHarness {
  registry: ToolRegistry;
  call(name: string, args: unknown, context?: Partial<ToolInvocationContext>): Promise<ToolResult>;
}

/** A registry of the built-ins (with per-tool config overrides) and a way to call them like the model does. */
export async function baseTools(
  options: { config?: Record<string, JsonObject>; context?: Partial<ToolInvocationContext> } = {},
): Promise<BaseToolHarness> {
  const resources = baseToolResources(options.config === undefined ? {} : { config: options.config });
  const registry = await ToolRegistry.fromResources(resources);
  const catalog = buildCatalog({ registry, agentTools: resources });
  return {
    registry,
    call: (name, args, context = {}) =>
      executeToolCall({
        call: { id: "call_test", name, args },
        catalog,
        registry,
        middlewares: [],
        context: invocationContext({ ...options.context, ...context }),
      }),
  };
}

export function okOutput(result: ToolResult): JsonObject {
  if (result.status !== "ok") throw new Error(`expected an ok result, got ${JSON.stringify(result)}`);
  return result.output as JsonObject;
}

export function errorOf(result: ToolResult) {
  if (result.status !== "error") throw new Error(`expected an error result, got ${JSON.stringify(result)}`);
  return result.error;
}
