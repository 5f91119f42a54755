/**
 * The sample tools every executeToolCall test runs against (test/tools/fixtures/sample-tools.ts), their registry
 * and catalog, and `call(name, args, options)`, which runs one tool call through executeToolCall.
 */
import type { ToolCallMiddleware } from "../../src/tools/execute-tool-call.ts";
import { executeToolCall } from "../../src/tools/execute-tool-call.ts";
import { buildCatalog } from "../../src/tools/tool-catalog.ts";
import { ToolRegistry } from "../../src/tools/tool-registry.ts";
import type { ToolCatalogItem, ToolResult } from "../../src/tools/types.ts";
import { invocationContext, toolResource } from "./helpers.ts";

const echoParameters = {
  type: "object",
  properties: {
    text: { type: "string", description: "what to echo" },
    count: { type: "integer", minimum: 0 },
    tags: { type: "array", items: { type: "string" } },
    mode: { type: "string", enum: ["loud", "quiet"] },
    limited: { type: "string", maxLength: 100 },
  },
  required: ["text"],
  additionalProperties: false,
};

const sample = toolResource({
  name: "sample",
  entry: "./sample-tools.ts",
  config: { answer: 42 },
  exports: [
    { name: "echo", parameters: echoParameters },
    { name: "context" },
    { name: "throw-error" },
    { name: "throw-coded" },
    { name: "throw-string" },
    { name: "throw-object" },
    { name: "throw-undefined" },
    { name: "throw-long" },
    { name: "never", timeoutMs: 50 },
    { name: "never-observes-signal", timeoutMs: 50 },
    { name: "returns-function" },
    { name: "returns-undefined" },
    { name: "returns-bigint" },
    { name: "returns-cycle" },
    { name: "returns-date" },
    { name: "returns-map" },
    { name: "returns-nan" },
    { name: "returns-huge" },
    { name: "returns-huge-string" },
    { name: "returns-hostile" },
    { name: "returns-hostile-async", timeoutMs: 2000 },
    { name: "pending" },
    { name: "pending-bare" },
  ],
});
const limited = toolResource({
  name: "limited",
  entry: "./sample-tools.ts",
  errorMessageLimit: 100,
  exports: [{ name: "throw-long" }],
});
const hidden = toolResource({ name: "hidden", entry: "./sample-tools.ts", exports: [{ name: "echo" }] });

export const registry = await ToolRegistry.fromResources([sample, limited, hidden]);
/** The step catalog: `sample` and `limited`; `hidden` is registered but not offered. */
export const catalog: ToolCatalogItem[] = buildCatalog({ registry, agentTools: [sample, limited] });

export interface CallOptions {
  middlewares?: ToolCallMiddleware[];
  parentSignal?: AbortSignal;
  catalog?: ToolCatalogItem[];
}

export function call(name: string, args: unknown, options: CallOptions = {}): Promise<ToolResult> {
  return executeToolCall({
    call: { id: "call_1", name, args },
    catalog: options.catalog ?? catalog,
    registry,
    middlewares: options.middlewares ?? [],
    context: invocationContext(options.parentSignal === undefined ? {} : { parentSignal: options.parentSignal }),
  });
}

export function errorOf(result: ToolResult) {
  if (result.status !== "error") throw new Error(`expected an error result, got ${JSON.stringify(result)}`);
  return result.error;
}
