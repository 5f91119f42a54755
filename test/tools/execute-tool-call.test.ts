import { describe, expect, it } from "bun:test";
import type { ToolCallMiddleware } from "../../src/tools/execute-tool-call.ts";
import { call, catalog, errorOf } from "./sample-tool-calls.ts";

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
        keys: [
          "agentName",
          "config",
          "instanceKey",
          "logger",
          "message",
          "runtime",
          "signal",
          "toolCallId",
          "turnId",
          "workdir",
        ],
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
    expect(await call("sample__pending", {})).toEqual({
      status: "pending",
      handle: "corr_1",
      output: { accepted: true },
    });
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
    expect(await call("hidden__echo", { extra: 1 }, { catalog: widened })).toEqual({
      status: "ok",
      output: { input: { extra: 1 } },
    });
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
    expect(error.suggestion).toContain(
      "Allowed keys (no others): text (string), count (integer), tags (array), mode (string), limited (string).",
    );
  });

  it("names the allowed values of an enum", async () => {
    expect(errorOf(await call("sample__echo", { text: "x", mode: "shout" })).message).toContain(
      '/mode: expected one of ["loud","quiet"], got "shout"',
    );
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
    expect(order).toEqual([
      "outer:before:sample__echo",
      "inner:before:sample__echo",
      "inner:after:ok",
      "outer:after:ok",
    ]);
  });

  it("lets middleware rewrite args before validation", async () => {
    const fix: ToolCallMiddleware = async (ctx, next) => {
      ctx.args = { text: String(ctx.args.text) };
      return next();
    };
    expect(await call("sample__echo", { text: 12 }, { middlewares: [fix] })).toEqual({
      status: "ok",
      output: { input: { text: "12" } },
    });
  });

  it("runs middleware before the object check, so it can repair arguments the model sent as a JSON string", async () => {
    const seen: unknown[] = [];
    const repair: ToolCallMiddleware = async (ctx, next) => {
      const args: unknown = ctx.args;
      seen.push(args);
      if (typeof args === "string") ctx.args = JSON.parse(args) as typeof ctx.args;
      return next();
    };
    expect(await call("sample__echo", '{"text":"hi"}', { middlewares: [repair] })).toEqual({
      status: "ok",
      output: { input: { text: "hi" } },
    });
    expect(seen).toEqual(['{"text":"hi"}']);
  });

  it("still refuses non-object arguments that middleware left as they were", async () => {
    let ran = false;
    const spy: ToolCallMiddleware = async (_ctx, next) => {
      ran = true;
      return next();
    };
    expect(errorOf(await call("sample__echo", [1, 2], { middlewares: [spy] })).code).toBe("E_TOOL_INVALID_ARGS");
    expect(ran).toBe(true);
  });

  it("validates the args a middleware wrote", async () => {
    const breaker: ToolCallMiddleware = async (ctx, next) => {
      (ctx as { args: unknown }).args = ["not", "an", "object"];
      return next();
    };
    expect(errorOf(await call("sample__echo", { text: "x" }, { middlewares: [breaker] })).code).toBe(
      "E_TOOL_INVALID_ARGS",
    );
  });

  it("skips the handler when middleware does not call next()", async () => {
    const deny: ToolCallMiddleware = async () => ({
      status: "error",
      error: { code: "E_POLICY_DENIED", name: "PolicyError", message: "not allowed here" },
    });
    expect(errorOf(await call("sample__echo", { text: "x" }, { middlewares: [deny] }))).toMatchObject({
      code: "E_POLICY_DENIED",
      message: "not allowed here",
    });
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
    expect(errorOf(await call("sample__echo", { text: "x" }, { middlewares: [garbage] }))).toMatchObject({
      code: "E_TOOL",
      name: "InvalidToolResult",
    });
    const nonJson: ToolCallMiddleware = async (_ctx, next) => {
      const result = await next();
      return { status: "ok", output: { when: new Date(0) as never } };
    };
    expect(await call("sample__echo", { text: "x" }, { middlewares: [nonJson] })).toEqual({
      status: "ok",
      output: { when: "1970-01-01T00:00:00.000Z" },
    });
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
