import { describe, expect, it } from "bun:test";
import type { ToolCallMiddleware } from "../../src/tools/execute-tool-call.ts";
import { call, errorOf } from "./sample-tool-calls.ts";

describe("executeToolCall: handler faults", () => {
  it("wraps a thrown Error as E_TOOL, keeping its name", async () => {
    const error = errorOf(await call("sample__throw-error", {}));
    expect(error).toMatchObject({
      code: "E_TOOL",
      name: "TypeError",
      message: "bad thing happened",
      helpUrl: "https://docs.goondan.ai/errors/E_TOOL",
    });
  });

  it("keeps a thrown error's own code", async () => {
    expect(errorOf(await call("sample__throw-coded", {}))).toMatchObject({
      code: "ENOENT",
      name: "Error",
      message: "no such file: a.txt",
    });
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
    expect(errorOf(await call("sample__echo", { text: "x" }, { parentSignal: already.signal })).code).toBe(
      "E_TOOL_CANCELLED",
    );
  });
});

describe("executeToolCall: non-JSON outputs", () => {
  it("converts values with a sensible JSON form", async () => {
    expect(await call("sample__returns-undefined", {})).toEqual({ status: "ok", output: null });
    expect(await call("sample__returns-bigint", {})).toEqual({ status: "ok", output: { big: "12345678901234567890" } });
    expect(await call("sample__returns-date", {})).toEqual({
      status: "ok",
      output: { at: "2026-01-02T03:04:05.000Z" },
    });
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

  for (const [label, middlewares] of [
    ["without middleware", []],
    ["through a middleware that passes the result on", [async (_ctx, next) => next()]],
  ] as [string, ToolCallMiddleware[]][]) {
    it(`caps a huge string once, within the limit, reporting its true size (${label})`, async () => {
      const result = await call("sample__returns-huge-string", {}, { middlewares });
      if (result.status !== "ok") throw new Error("expected ok");
      const output = result.output as string;
      expect(output.endsWith("... (truncated: 5000002 bytes in all)")).toBe(true);
      expect(output.startsWith("x".repeat(1000))).toBe(true);
      expect(Buffer.byteLength(JSON.stringify(output))).toBeLessThanOrEqual(256 * 1024);
    });
  }
});

describe("executeToolCall: results that cannot be read", () => {
  it("reports a result whose getters throw as an output error, not a middleware failure", async () => {
    const error = errorOf(await call("sample__returns-hostile", {}));
    expect(error).toMatchObject({ code: "E_TOOL", name: "ToolOutputError" });
    expect(error.message).not.toContain("middleware");
  });

  it("reports an async handler resolving to such a value as the handler's failure, at once and not as a middleware failure", async () => {
    // Resolving a promise with it reads its `then`, which throws: the handler's promise rejects with that error.
    const started = Date.now();
    const error = errorOf(await call("sample__returns-hostile-async", {}));
    expect(error).toMatchObject({ code: "E_TOOL", message: "getter trap" });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("still names a throwing middleware as a middleware failure", async () => {
    const broken: ToolCallMiddleware = async () => {
      throw new RangeError("layer broke");
    };
    expect(errorOf(await call("sample__echo", { text: "x" }, { middlewares: [broken] })).message).toContain(
      "a toolCall middleware failed",
    );
  });
});
