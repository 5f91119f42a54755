import { describe, expect, it } from "bun:test";
import { executeToolCall, type ToolCallMiddleware } from "../../src/tools/execute-tool-call.ts";
import { pending } from "../../src/tools/pending.ts";
import { settleCompletion, type PendingCompletion } from "../../src/tools/pending-completion.ts";
import { ToolFault } from "../../src/tools/tool-errors.ts";
import { ToolRegistry } from "../../src/tools/tool-registry.ts";
import type { ToolHandler } from "../../src/tools/types.ts";
import { invocationContext } from "./helpers.ts";

const item = { name: "job__start", parameters: { type: "object", properties: {} } };

function run(options: { handler: ToolHandler; middlewares?: ToolCallMiddleware[]; listen?: boolean }) {
  const registry = new ToolRegistry();
  registry.register(item, options.handler);
  const received: PendingCompletion[] = [];
  const context = invocationContext(
    options.listen === false ? {} : { onPendingCompletion: (completion) => received.push(completion) },
  );
  const result = executeToolCall({
    call: { id: "c1", name: item.name, args: {} },
    catalog: [item],
    registry,
    context,
    ...(options.middlewares === undefined ? {} : { middlewares: options.middlewares }),
  });
  return { result, received };
}

describe("pending(handle, output, { completion })", () => {
  it("returns the pending result at once and hands the completion to onPendingCompletion", async () => {
    const never = new Promise<never>(() => {});
    const { result, received } = run({
      handler: async () => pending("job-1", { accepted: true }, { completion: never }),
    });
    expect(await result).toEqual({ status: "pending", handle: "job-1", output: { accepted: true } });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      handle: "job-1",
      toolName: "job__start",
      toolCallId: "c1",
      errorMessageLimit: 1000,
    });
    expect(received[0]?.completion).toBe(never);
  });

  it("refuses a completion that is not a promise", () => {
    expect(() => pending("job-1", undefined, { completion: 42 as never })).toThrow(TypeError);
  });

  it("does not hand over a completion when middleware replaced the pending result, and absorbs its rejection", async () => {
    const deny: ToolCallMiddleware = async (_ctx, next) => {
      await next();
      return { status: "error", error: { code: "E_POLICY", name: "PolicyError", message: "no background jobs" } };
    };
    const { result, received } = run({
      handler: () => pending("job-2", undefined, { completion: Promise.reject(new Error("late failure")) }),
      middlewares: [deny],
    });
    expect((await result).status).toBe("error");
    expect(received).toEqual([]);
    await Bun.sleep(1);
  });

  it("still answers pending, and absorbs a rejection, when nobody listens for completions", async () => {
    const { result } = run({
      handler: () => pending("job-3", undefined, { completion: Promise.reject(new Error("nobody hears")) }),
      listen: false,
    });
    expect(await result).toEqual({ status: "pending", handle: "job-3" });
    await Bun.sleep(1);
  });
});

describe("settleCompletion", () => {
  const base = { handle: "h", toolName: "job__start", toolCallId: "c1", errorMessageLimit: 40, maxOutputBytes: 1000 };

  it("turns a value into an ok result with JSON output, capped like any output", async () => {
    expect(await settleCompletion({ ...base, completion: Promise.resolve({ at: new Date(0) }) })).toEqual({
      status: "ok",
      output: { at: "1970-01-01T00:00:00.000Z" },
    });
    const big = await settleCompletion({ ...base, completion: Promise.resolve("z".repeat(5000)) });
    expect(big.status === "ok" && String(big.output).endsWith("(truncated: 5002 bytes in all)")).toBe(true);
  });

  it("turns a rejection into a structured error cut to the tool's errorMessageLimit", async () => {
    const result = await settleCompletion({
      ...base,
      completion: Promise.reject(new ToolFault("E_JOB", "x".repeat(100))),
    });
    if (result.status !== "error") throw new Error("expected an error");
    expect(result.error).toMatchObject({ code: "E_JOB", name: "ToolFault" });
    expect(result.error.message.length).toBe(40);
  });

  it("reports a value that is not JSON as an output error", async () => {
    const result = await settleCompletion({ ...base, completion: Promise.resolve({ fn: () => 1 }) });
    expect(result).toMatchObject({ status: "error", error: { code: "E_TOOL", name: "ToolOutputError" } });
  });
});
