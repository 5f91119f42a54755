import { beforeAll, describe, expect, it } from "bun:test";
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
    { name: "pending" },
    { name: "pending-bare" },
  ],
});
const limited = toolResource({ name: "limited", entry: "./sample-tools.ts", errorMessageLimit: 100, exports: [{ name: "throw-long" }] });
const hidden = toolResource({ name: "hidden", entry: "./sample-tools.ts", exports: [{ name: "echo" }] });

let registry: ToolRegistry;
let catalog: ToolCatalogItem[];

beforeAll(async () => {
  registry = await ToolRegistry.fromResources([sample, limited, hidden]);
  catalog = buildCatalog({ registry, agentTools: [sample, limited] });
});

function call(name: string, args: unknown, options: { middlewares?: ToolCallMiddleware[]; parentSignal?: AbortSignal; catalog?: ToolCatalogItem[] } = {}): Promise<ToolResult> {
  return executeToolCall({
    call: { id: "call_1", name, args },
    catalog: options.catalog ?? catalog,
    registry,
    middlewares: options.middlewares ?? [],
    context: invocationContext(options.parentSignal === undefined ? {} : { parentSignal: options.parentSignal }),
  });
}

function errorOf(result: ToolResult) {
  if (result.status !== "error") throw new Error(`expected an error result, got ${JSON.stringify(result)}`);
  return result.error;
}

describe("executeToolCall: success", () => {
  it("runs the handler and wraps its output", async () => {
    expect(await call("sample__echo", { text: "hi" })).toEqual({ status: "ok", output: { input: { text: "hi" } } });
  });

  it("gives the handler its full ToolContext, with the Tool's config", async () => {
    const result = await call("sample__context", {});
    expect(result).toEqual({
      status: "ok",
      output: {
        agentName: "tester",
        instanceKey: "default",
        turnId: "turn_1",
        toolCallId: "call_1",
        workdir: "/nonexistent-workdir",
        messageId: "msg_1",
        config: { answer: 42 },
        hasSignal: true,
        keys: ["agentName", "config", "instanceKey", "logger", "message", "runtime", "signal", "toolCallId", "turnId", "workdir"],
      },
    });
  });

  it("never hands the handler v1 fields (swarmBundle, oauth) or the parent signal", async () => {
    const result = await call("sample__context", {}, { parentSignal: new AbortController().signal });
    if (result.status !== "ok") throw new Error("expected ok");
    const keys = (result.output as { keys: string[] }).keys;
    for (const removed of ["swarmBundle", "oauth", "parentSignal"]) expect(keys).not.toContain(removed);
  });

  it("turns a pending handle into a pending result", async () => {
    expect(await call("sample__pending", {})).toEqual({ status: "pending", handle: "corr_1", output: { accepted: true } });
    expect(await call("sample__pending-bare", {})).toEqual({ status: "pending", handle: "corr_2" });
  });
});

describe("executeToolCall: the catalog gate", () => {
  it("refuses a registered tool that is not in this step's catalog (E_TOOL_NOT_IN_CATALOG)", async () => {
    const error = errorOf(await call("hidden__echo", { text: "x" }));
    expect(error.code).toBe("E_TOOL_NOT_IN_CATALOG");
    expect(error.name).toBe("ToolNotInCatalogError");
    expect(error.helpUrl).toBe("https://docs.goondan.ai/errors/E_TOOL_NOT_IN_CATALOG");
    expect(error.suggestion).toContain("sample__echo");
  });

  it("refuses a tool removed from the catalog by step middleware", async () => {
    const trimmed = catalog.filter((item) => item.name !== "sample__echo");
    expect(errorOf(await call("sample__echo", { text: "x" }, { catalog: trimmed })).code).toBe("E_TOOL_NOT_IN_CATALOG");
  });

  it("runs a registered tool that step middleware added to this step's catalog", async () => {
    const widened = [...catalog, { name: "hidden__echo" }];
    expect(await call("hidden__echo", { extra: 1 }, { catalog: widened })).toEqual({ status: "ok", output: { input: { extra: 1 } } });
  });

  it("answers an unknown name with E_TOOL_NOT_FOUND and the closest catalog names", async () => {
    const error = errorOf(await call("sample__ecko", { text: "x" }));
    expect(error.code).toBe("E_TOOL_NOT_FOUND");
    expect(error.suggestion?.startsWith("Did you mean sample__echo")).toBe(true);
  });

  it("answers a name without '__' with E_TOOL_NOT_FOUND, explaining the name form and suggesting matches", async () => {
    const error = errorOf(await call("echo", { text: "x" }));
    expect(error.code).toBe("E_TOOL_NOT_FOUND");
    expect(error.message).toContain("resource__export");
    expect(error.suggestion).toContain("Did you mean sample__echo");
  });

  it("refuses a catalog item that nothing in the registry implements (E_TOOL_NOT_FOUND)", async () => {
    const withGhost = [...catalog, { name: "ghost__tool" }];
    expect(errorOf(await call("ghost__tool", {}, { catalog: withGhost })).code).toBe("E_TOOL_NOT_FOUND");
  });

  it("copes with an enormous tool name", async () => {
    const error = errorOf(await call(`x${"y".repeat(1_000_000)}`, {}));
    expect(error.code).toBe("E_TOOL_NOT_FOUND");
    expect(error.message.length).toBeLessThanOrEqual(1000);
  });
});

describe("executeToolCall: arguments", () => {
  for (const [label, args, found] of [
    ["null", null, "null"],
    ["an array", [1, 2], "an array"],
    ["a string", '{"text":"hi"}', "a string"],
    ["a number", 7, "number"],
    ["undefined", undefined, "undefined"],
  ] as const) {
    it(`refuses ${label} as arguments (E_TOOL_INVALID_ARGS) and names the expected keys`, async () => {
      const error = errorOf(await call("sample__echo", args));
      expect(error.code).toBe("E_TOOL_INVALID_ARGS");
      expect(error.message).toContain(`must be a JSON object, got ${found}`);
      expect(error.suggestion).toContain("Required keys: text.");
    });
  }

  it("lists each wrong type with its path and the expected type", async () => {
    const error = errorOf(await call("sample__echo", { text: 5, count: "3", tags: ["ok", 2] }));
    expect(error.code).toBe("E_TOOL_INVALID_ARGS");
    expect(error.message).toContain("/text: expected string, got integer");
    expect(error.message).toContain("/count: expected integer, got string");
    expect(error.message).toContain("/tags/1: expected string, got integer");
  });

  it("names a missing required field", async () => {
    expect(errorOf(await call("sample__echo", {})).message).toContain("/text: required property is missing");
  });

  it("names an extra field and lists the allowed keys", async () => {
    const error = errorOf(await call("sample__echo", { text: "x", colour: "red" }));
    expect(error.message).toContain("/colour: unknown property (not allowed)");
    expect(error.suggestion).toContain("Allowed keys (no others): text (string), count (integer), tags (array), mode (string), limited (string).");
  });

  it("names the allowed values of an enum", async () => {
    expect(errorOf(await call("sample__echo", { text: "x", mode: "shout" })).message).toContain('/mode: expected one of ["loud","quiet"], got "shout"');
  });

  it("refuses a huge string beyond maxLength without echoing it back", async () => {
    const error = errorOf(await call("sample__echo", { text: "x", limited: "z".repeat(2_000_000) }));
    expect(error.code).toBe("E_TOOL_INVALID_ARGS");
    expect(error.message).toContain("(got 2000000 characters)");
    expect(error.message.length).toBeLessThanOrEqual(1000);
  });

  it("passes a huge string through to a handler whose schema allows it", async () => {
    const result = await call("sample__echo", { text: "h".repeat(100_000) });
    expect(result.status).toBe("ok");
  });

  it("validates before the handler runs: an invalid call never reaches it", async () => {
    let reached = false;
    const spy: ToolCallMiddleware = async (ctx, next) => {
      const result = await next();
      reached = result.status === "ok";
      return result;
    };
    await call("sample__echo", { text: 1 }, { middlewares: [spy] });
    expect(reached).toBe(false);
  });
});

describe("executeToolCall: handler faults", () => {
  it("wraps a thrown Error as E_TOOL, keeping its name", async () => {
    const error = errorOf(await call("sample__throw-error", {}));
    expect(error).toMatchObject({ code: "E_TOOL", name: "TypeError", message: "bad thing happened", helpUrl: "https://docs.goondan.ai/errors/E_TOOL" });
  });

  it("keeps a thrown error's own code", async () => {
    expect(errorOf(await call("sample__throw-coded", {}))).toMatchObject({ code: "ENOENT", name: "Error", message: "no such file: a.txt" });
  });

  it("describes non-Error thrown values clearly", async () => {
    const fromString = errorOf(await call("sample__throw-string", {}));
    expect(fromString).toMatchObject({ code: "E_TOOL", name: "NonErrorThrown" });
    expect(fromString.message).toContain('"plain string"');
    expect(errorOf(await call("sample__throw-object", {})).message).toContain('{"reason":"object thrown"}');
    expect(errorOf(await call("sample__throw-undefined", {})).message).toContain("undefined");
  });

  it("cuts long error messages to the tool's errorMessageLimit", async () => {
    expect(errorOf(await call("sample__throw-long", {})).message.length).toBe(1000);
    const cut = errorOf(await call("limited__throw-long", {})).message;
    expect(cut.length).toBe(100);
    expect(cut.endsWith("... (truncated)")).toBe(true);
  });

  it("ends a handler that never resolves with E_TOOL_TIMEOUT after the export's timeoutMs", async () => {
    const started = Date.now();
    const error = errorOf(await call("sample__never", {}));
    expect(error.code).toBe("E_TOOL_TIMEOUT");
    expect(error.message).toContain("50 ms");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("aborts ctx.signal on timeout, and the handler's late rejection is absorbed", async () => {
    expect(errorOf(await call("sample__never-observes-signal", {})).code).toBe("E_TOOL_TIMEOUT");
    await Bun.sleep(5);
  });

  it("cancels a running call when the parent signal aborts (E_TOOL_CANCELLED)", async () => {
    const parent = new AbortController();
    const running = call("sample__never-observes-signal", {}, { parentSignal: parent.signal });
    parent.abort();
    expect(errorOf(await running).code).toBe("E_TOOL_CANCELLED");
    const already = new AbortController();
    already.abort();
    expect(errorOf(await call("sample__echo", { text: "x" }, { parentSignal: already.signal })).code).toBe("E_TOOL_CANCELLED");
  });
});

describe("executeToolCall: non-JSON outputs", () => {
  it("converts values with a sensible JSON form", async () => {
    expect(await call("sample__returns-undefined", {})).toEqual({ status: "ok", output: null });
    expect(await call("sample__returns-bigint", {})).toEqual({ status: "ok", output: { big: "12345678901234567890" } });
    expect(await call("sample__returns-date", {})).toEqual({ status: "ok", output: { at: "2026-01-02T03:04:05.000Z" } });
    expect(await call("sample__returns-map", {})).toEqual({ status: "ok", output: { a: 1, b: [1, 2] } });
    expect(await call("sample__returns-nan", {})).toEqual({ status: "ok", output: [null, null, 1] });
  });

  it("fails clearly for a function or a cycle", async () => {
    const fn = errorOf(await call("sample__returns-function", {}));
    expect(fn).toMatchObject({ code: "E_TOOL", name: "ToolOutputError" });
    expect(fn.message).toContain("is a function");
    expect(errorOf(await call("sample__returns-cycle", {})).message).toContain("$.self is a circular reference");
  });

  it("caps a huge output with a truncation marker", async () => {
    const result = await call("sample__returns-huge", {});
    if (result.status !== "ok") throw new Error("expected ok");
    expect(result.output).toMatchObject({ truncated: true });
    expect(JSON.stringify(result.output).length).toBeLessThan(256 * 1024 + 1024);
  });
});

describe("executeToolCall: toolCall middleware", () => {
  it("runs middleware as an onion around the handler", async () => {
    const order: string[] = [];
    const layer =
      (name: string): ToolCallMiddleware =>
      async (ctx, next) => {
        order.push(`${name}:before:${ctx.toolName}`);
        const result = await next();
        order.push(`${name}:after:${result.status}`);
        return result;
      };
    await call("sample__echo", { text: "x" }, { middlewares: [layer("outer"), layer("inner")] });
    expect(order).toEqual(["outer:before:sample__echo", "inner:before:sample__echo", "inner:after:ok", "outer:after:ok"]);
  });

  it("lets middleware rewrite args before validation", async () => {
    const fix: ToolCallMiddleware = async (ctx, next) => {
      ctx.args = { text: String(ctx.args.text) };
      return next();
    };
    expect(await call("sample__echo", { text: 12 }, { middlewares: [fix] })).toEqual({ status: "ok", output: { input: { text: "12" } } });
  });

  it("validates the args a middleware wrote", async () => {
    const breaker: ToolCallMiddleware = async (ctx, next) => {
      (ctx as { args: unknown }).args = ["not", "an", "object"];
      return next();
    };
    expect(errorOf(await call("sample__echo", { text: "x" }, { middlewares: [breaker] })).code).toBe("E_TOOL_INVALID_ARGS");
  });

  it("skips the handler when middleware does not call next()", async () => {
    const deny: ToolCallMiddleware = async () => ({ status: "error", error: { code: "E_POLICY_DENIED", name: "PolicyError", message: "not allowed here" } });
    expect(errorOf(await call("sample__echo", { text: "x" }, { middlewares: [deny] }))).toMatchObject({ code: "E_POLICY_DENIED", message: "not allowed here" });
  });

  it("turns a throwing middleware into an E_TOOL result", async () => {
    const broken: ToolCallMiddleware = async () => {
      throw new RangeError("middleware exploded");
    };
    const error = errorOf(await call("sample__echo", { text: "x" }, { middlewares: [broken] }));
    expect(error).toMatchObject({ code: "E_TOOL", name: "RangeError" });
    expect(error.message).toContain("middleware exploded");
  });

  it("turns next() called twice into an E_TOOL result", async () => {
    const twice: ToolCallMiddleware = async (_ctx, next) => {
      await next();
      return next();
    };
    expect(errorOf(await call("sample__echo", { text: "x" }, { middlewares: [twice] })).code).toBe("E_TOOL");
  });

  it("repairs a middleware result that is not a ToolResult", async () => {
    const garbage = (async () => 42) as unknown as ToolCallMiddleware;
    expect(errorOf(await call("sample__echo", { text: "x" }, { middlewares: [garbage] }))).toMatchObject({ code: "E_TOOL", name: "InvalidToolResult" });
    const nonJson: ToolCallMiddleware = async (_ctx, next) => {
      const result = await next();
      return { status: "ok", output: { when: new Date(0) as never } };
    };
    expect(await call("sample__echo", { text: "x" }, { middlewares: [nonJson] })).toEqual({ status: "ok", output: { when: "1970-01-01T00:00:00.000Z" } });
  });

  it("shares metadata between layers", async () => {
    const writer: ToolCallMiddleware = async (ctx, next) => {
      ctx.metadata.startedBy = "writer";
      return next();
    };
    let seen: unknown;
    const reader: ToolCallMiddleware = async (ctx, next) => {
      seen = ctx.metadata.startedBy;
      return next();
    };
    await call("sample__echo", { text: "x" }, { middlewares: [writer, reader] });
    expect(seen).toBe("writer");
  });

  it("does not run middleware for calls refused at the catalog gate", async () => {
    let ran = false;
    const spy: ToolCallMiddleware = async (_ctx, next) => {
      ran = true;
      return next();
    };
    await call("nothing__here", {}, { middlewares: [spy] });
    expect(ran).toBe(false);
  });
});
