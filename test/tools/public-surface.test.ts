import { beforeAll, describe, expect, it } from "bun:test";
import { executeToolCall } from "../../src/tools/execute-tool-call.ts";
import { buildCatalog } from "../../src/tools/tool-catalog.ts";
import { ToolRegistry } from "../../src/tools/tool-registry.ts";
import type { ToolCatalogItem } from "../../src/tools/types.ts";
import { invocationContext, toolResource } from "./helpers.ts";

const author = toolResource({
  name: "author",
  entry: "./author-tool.ts",
  exports: [{ name: "greet" }, { name: "later" }, { name: "refuse" }],
});
let registry: ToolRegistry;
let catalog: ToolCatalogItem[];

beforeAll(async () => {
  registry = await ToolRegistry.fromResources([author]);
  catalog = buildCatalog({ registry, agentTools: [author] });
});

const call = (name: string, args: unknown) =>
  executeToolCall({ call: { id: "c", name, args }, catalog, registry, context: invocationContext() });

describe('a tool file importing from "goondan"', () => {
  it("loads and runs with the public types and helpers", async () => {
    expect(await call("author__greet", { name: "ada" })).toEqual({
      status: "ok",
      output: { greeting: "hello ada", agent: "tester" },
    });
  });

  it("can return pending(handle) and throw ToolFault with its own code and suggestion", async () => {
    expect(await call("author__later", {})).toEqual({ status: "pending", handle: "job-1" });
    expect(await call("author__refuse", {})).toEqual({
      status: "error",
      error: {
        code: "E_AUTHOR_REFUSED",
        name: "ToolFault",
        message: "not today",
        suggestion: "ask tomorrow",
        helpUrl: "https://docs.goondan.ai/errors/E_AUTHOR_REFUSED",
      },
    });
  });
});
