import { describe, expect, it } from "bun:test";
import { buildCatalog } from "../../src/tools/tool-catalog.ts";
import { ToolRegistry } from "../../src/tools/tool-registry.ts";
import { toolResource } from "./helpers.ts";

const alpha = toolResource({
  name: "alpha",
  entry: "./sample-tools.ts",
  exports: [{ name: "echo" }, { name: "context" }],
});
const beta = toolResource({ name: "beta", entry: "./sample-tools.ts", exports: [{ name: "echo" }] });
const unused = toolResource({ name: "unused", entry: "./sample-tools.ts", exports: [{ name: "echo" }] });

describe("buildCatalog", () => {
  it("lists the agent's tools in Agent.spec.tools order, then dynamic tools", async () => {
    const registry = await ToolRegistry.fromResources([alpha, beta, unused]);
    registry.register({ name: "dyn__tool", description: "dynamic" }, () => null, {
      source: { type: "extension", name: "ext" },
    });
    const catalog = buildCatalog({ registry, agentTools: [beta, alpha] });
    expect(catalog.map((item) => item.name)).toEqual(["beta__echo", "alpha__echo", "alpha__context", "dyn__tool"]);
    expect(catalog[0]?.source).toEqual({ type: "config", name: "beta" });
    expect(catalog[3]?.source).toEqual({ type: "extension", name: "ext" });
  });

  it("leaves out registry tools the agent did not declare", async () => {
    const registry = await ToolRegistry.fromResources([alpha, unused]);
    expect(buildCatalog({ registry, agentTools: [alpha] }).some((item) => item.name.startsWith("unused__"))).toBe(
      false,
    );
  });

  it("hands out fresh items: editing a catalog never changes the registry or the next catalog", async () => {
    const registry = await ToolRegistry.fromResources([alpha]);
    const first = buildCatalog({ registry, agentTools: [alpha] });
    first[0]!.description = "edited by step middleware";
    first.pop();
    const second = buildCatalog({ registry, agentTools: [alpha] });
    expect(second.map((item) => item.name)).toEqual(["alpha__echo", "alpha__context"]);
    expect(second[0]?.description).toBeUndefined();
  });

  it("refuses an agent tool that the registry was not built with (our bug, E_TOOL_NOT_REGISTERED)", async () => {
    const registry = await ToolRegistry.fromResources([alpha]);
    expect(() => buildCatalog({ registry, agentTools: [beta] })).toThrow(
      expect.objectContaining({ code: "E_TOOL_NOT_REGISTERED" }),
    );
  });
});
