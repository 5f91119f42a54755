import { describe, expect, it } from "bun:test";
import { resolve } from "node:path";
import { compiledSchemaCount } from "../../src/tools/args-validator.ts";
import { ToolRegistry } from "../../src/tools/tool-registry.ts";
import { FIXTURES_DIR, toolResource } from "./helpers.ts";

const sample = (name = "sample", exports = [{ name: "echo" }]) =>
  toolResource({ name, entry: "./sample-tools.ts", exports });

async function configErrorCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe("ToolRegistry.fromResources", () => {
  it("registers every export as resource__export with its settings", async () => {
    const resource = toolResource({
      name: "sample",
      entry: "./sample-tools.ts",
      exports: [{ name: "echo", description: "echo back", timeoutMs: 1234 }, { name: "context" }],
      config: { root: "/data" },
      errorMessageLimit: 300,
    });
    const registry = await ToolRegistry.fromResources([resource]);
    expect(registry.names()).toEqual(["sample__echo", "sample__context"]);
    const entry = registry.get("sample__echo");
    expect(entry?.item).toEqual({
      name: "sample__echo",
      description: "echo back",
      parameters: { type: "object", properties: {} },
      source: { type: "config", name: "sample" },
    });
    expect(entry?.timeoutMs).toBe(1234);
    expect(entry?.errorMessageLimit).toBe(300);
    expect(entry?.config).toEqual({ root: "/data" });
    expect(registry.get("sample__context")?.timeoutMs).toBe(60_000);
    expect(registry.has("sample__missing")).toBe(false);
  });

  it("imports each entry module once per process, however many resources and registries use it", async () => {
    await ToolRegistry.fromResources([sample("one"), sample("two")]);
    await ToolRegistry.fromResources([sample("three")]);
    const module = await import(resolve(FIXTURES_DIR, "sample-tools.ts"));
    expect(module.importCount).toBe(1);
  });

  it("compiles each config tool's schema once per process, on its first use, never per call", async () => {
    const schema = {
      type: "object",
      properties: { unique_for_this_test: { type: "string" } },
      additionalProperties: false,
    };
    const resource = toolResource({
      name: "once",
      entry: "./sample-tools.ts",
      exports: [{ name: "echo", parameters: schema }],
    });
    const before = compiledSchemaCount();
    const registry = await ToolRegistry.fromResources([resource]);
    expect(compiledSchemaCount()).toBe(before);
    await ToolRegistry.fromResources([resource]);
    const validate = registry.get("once__echo")!.validate;
    for (let index = 0; index < 100; index++) validate({ unique_for_this_test: String(index) });
    expect(validate({ unique_for_this_test: 1 } as never)).not.toBeNull();
    expect(compiledSchemaCount()).toBe(before + 1);
  });

  it("rejects an entry that cannot be imported (E_CONFIG_ENTRY_NOT_FOUND)", async () => {
    expect(
      await configErrorCode(
        ToolRegistry.fromResources([toolResource({ name: "gone", entry: "./missing.ts", exports: [{ name: "x" }] })]),
      ),
    ).toBe("E_CONFIG_ENTRY_NOT_FOUND");
  });

  it("rejects a module without a `handlers` export (E_CONFIG_TOOL_HANDLERS_MISSING)", async () => {
    expect(
      await configErrorCode(
        ToolRegistry.fromResources([
          toolResource({ name: "bad", entry: "./no-handlers.ts", exports: [{ name: "read" }] }),
        ]),
      ),
    ).toBe("E_CONFIG_TOOL_HANDLERS_MISSING");
  });

  it("rejects an export without a handler (E_CONFIG_TOOL_HANDLER_MISSING)", async () => {
    const resource = toolResource({
      name: "partial",
      entry: "./partial-handlers.ts",
      exports: [{ name: "read" }, { name: "write" }],
    });
    expect(await configErrorCode(ToolRegistry.fromResources([resource]))).toBe("E_CONFIG_TOOL_HANDLER_MISSING");
  });

  it("rejects '__' inside resource or export names (E_CONFIG_TOOL_NAME_INVALID)", async () => {
    expect(await configErrorCode(ToolRegistry.fromResources([sample("bad__name")]))).toBe("E_CONFIG_TOOL_NAME_INVALID");
    expect(await configErrorCode(ToolRegistry.fromResources([sample("ok", [{ name: "ec__ho" }])]))).toBe(
      "E_CONFIG_TOOL_NAME_INVALID",
    );
  });

  it("rejects a dynamic tool whose parameters are not valid JSON Schema at registration (E_CONFIG_TOOL_SCHEMA_INVALID)", () => {
    const registry = new ToolRegistry();
    const register = () =>
      registry.register(
        { name: "dyn__bad", parameters: { type: "object", properties: { a: { type: "strnig" } } } },
        () => null,
      );
    expect(register).toThrow(expect.objectContaining({ code: "E_CONFIG_TOOL_SCHEMA_INVALID" }));
  });

  it("reports a config tool's invalid schema (which the config plane refuses first) on use, as E_CONFIG_TOOL_SCHEMA_INVALID", async () => {
    const resource = toolResource({
      name: "sample",
      entry: "./sample-tools.ts",
      exports: [{ name: "echo", parameters: { type: "object", properties: { a: { type: "strnig" } } } }],
    });
    const registry = await ToolRegistry.fromResources([resource]);
    expect(() => registry.get("sample__echo")!.validate({})).toThrow(
      expect.objectContaining({ code: "E_CONFIG_TOOL_SCHEMA_INVALID" }),
    );
  });

  it("rejects an export name used twice in one Tool (E_CONFIG_DUPLICATE_NAME)", async () => {
    expect(
      await configErrorCode(ToolRegistry.fromResources([sample("twice", [{ name: "echo" }, { name: "echo" }])])),
    ).toBe("E_CONFIG_DUPLICATE_NAME");
  });

  it("rejects a Tool without exports (E_CONFIG_SCHEMA_INVALID)", async () => {
    expect(await configErrorCode(ToolRegistry.fromResources([sample("empty", [])]))).toBe("E_CONFIG_SCHEMA_INVALID");
  });

  it("rejects two tools with the same name (E_CONFIG_DUPLICATE_NAME)", async () => {
    expect(await configErrorCode(ToolRegistry.fromResources([sample(), sample()]))).toBe("E_CONFIG_DUPLICATE_NAME");
  });
});

describe("ToolRegistry.register (api.tools.register)", () => {
  it("adds a dynamic tool with an extension source", async () => {
    const registry = new ToolRegistry();
    registry.register(
      {
        name: "weather__get",
        description: "weather",
        parameters: { type: "object", properties: { city: { type: "string" } } },
      },
      () => "sunny",
      {
        source: { type: "extension", name: "weather-ext" },
        timeoutMs: 500,
      },
    );
    const entry = registry.get("weather__get");
    expect(entry?.item.source).toEqual({ type: "extension", name: "weather-ext" });
    expect(entry?.timeoutMs).toBe(500);
    expect(entry?.dynamic).toBe(true);
    expect(registry.dynamicItems().map((item) => item.name)).toEqual(["weather__get"]);
  });

  it("defaults parameters to any object, and keeps the item's own source over the registering extension's", () => {
    const registry = new ToolRegistry();
    registry.register(
      { name: "mcp__query", source: { type: "mcp", name: "db", mcp: { extensionName: "mcp-db" } } },
      () => null,
      { source: { type: "extension", name: "mcp-db" } },
    );
    expect(registry.get("mcp__query")?.item.parameters).toEqual({ type: "object", properties: {} });
    expect(registry.get("mcp__query")?.item.source?.type).toBe("mcp");
  });

  it("refuses names without '__', duplicates, and non-function handlers", () => {
    const registry = new ToolRegistry();
    const codeOf = (action: () => void) => {
      try {
        action();
      } catch (error) {
        return (error as { code?: string }).code;
      }
      return undefined;
    };
    expect(codeOf(() => registry.register({ name: "weather" }, () => null))).toBe("E_CONFIG_TOOL_NAME_INVALID");
    registry.register({ name: "weather__get" }, () => null);
    expect(codeOf(() => registry.register({ name: "weather__get" }, () => null))).toBe("E_CONFIG_DUPLICATE_NAME");
    expect(codeOf(() => registry.register({ name: "weather__put" }, "nope" as never))).toBe(
      "E_CONFIG_TOOL_HANDLER_MISSING",
    );
  });

  it("unregisters dynamic tools only", async () => {
    const registry = await ToolRegistry.fromResources([sample()]);
    registry.register({ name: "dyn__x" }, () => null);
    expect(registry.unregister("dyn__x")).toBe(true);
    expect(registry.unregister("sample__echo")).toBe(false);
    expect(registry.has("sample__echo")).toBe(true);
  });

  it("unregisters only the owner's tools when an owner is named", async () => {
    const registry = new ToolRegistry();
    registry.register({ name: "files__read" }, () => null, {
      source: { type: "mcp", name: "mcp", mcp: { extensionName: "mcp", serverName: "files" } },
    });
    registry.register({ name: "weather__get" }, () => null, { source: { type: "extension", name: "weather" } });
    expect(registry.unregister("files__read", { owner: "weather" })).toBe(false);
    expect(registry.unregister("weather__get", { owner: "mcp" })).toBe(false);
    expect(registry.unregister("files__read", { owner: "mcp" })).toBe(true);
    expect(registry.unregister("weather__get", { owner: "weather" })).toBe(true);
    expect(registry.names()).toEqual([]);
  });
});

describe("executeToolCall with a config tool whose schema is invalid", () => {
  it("answers a structured E_TOOL result naming the schema problem, never a throw", async () => {
    const { executeToolCall } = await import("../../src/tools/execute-tool-call.ts");
    const { silentLogger } = await import("../../src/shared/logger.ts");
    const resource = toolResource({
      name: "broken",
      entry: "./sample-tools.ts",
      exports: [{ name: "echo", parameters: { type: "object", properties: { a: { type: "strnig" } } } }],
    });
    const registry = await ToolRegistry.fromResources([resource]);
    const catalog = [registry.get("broken__echo")!.item];
    const result = await executeToolCall({
      call: { id: "c1", name: "broken__echo", args: {} },
      catalog,
      registry,
      context: {
        agentName: "a",
        instanceKey: "k",
        turnId: "t",
        message: {
          id: "m",
          data: { role: "assistant", content: "" },
          metadata: {},
          createdAt: "",
          source: { type: "assistant" },
        },
        workdir: "/tmp",
        logger: silentLogger(),
        runtime: {} as never,
      },
    });
    expect(result).toMatchObject({ status: "error", error: { code: "E_TOOL" } });
    expect(result.status === "error" ? result.error.message : "").toContain("not a valid JSON Schema");
  });
});
