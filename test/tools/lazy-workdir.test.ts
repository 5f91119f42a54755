/**
 * The instance's workdir is made when a tool first reads `ctx.workdir` (create-agent-instance.ts), so the handler's
 * ToolContext keeps the caller's getter (run-handler.ts handlerContext): a tool that never reads it makes no
 * directory, and one that does reads the caller's value.
 */
import { describe, expect, it } from "bun:test";
import { executeToolCall } from "../../src/tools/execute-tool-call.ts";
import { ToolRegistry } from "../../src/tools/tool-registry.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { invocationContext } from "./helpers.ts";

function setUp() {
  const registry = new ToolRegistry();
  const parameters = { type: "object", properties: {} };
  registry.register({ name: "calc__add", parameters }, () => 3);
  registry.register({ name: "disk__where", parameters }, (ctx: ToolContext) => ctx.workdir);
  registry.register({ name: "disk__keys", parameters }, (ctx: ToolContext) => Object.keys(ctx).sort());
  let reads = 0;
  const base = invocationContext();
  const context = Object.defineProperty({ ...base, parentSignal: new AbortController().signal }, "workdir", {
    enumerable: true,
    get: () => {
      reads += 1;
      return "/state/instances/a/k/workdir";
    },
  });
  const call = async (name: string): Promise<{ status: string; output?: unknown }> =>
    executeToolCall({ call: { id: `c-${name}`, name, args: {} }, catalog: registry.dynamicItems(), registry, context });
  return { call, reads: () => reads };
}

describe("ctx.workdir", () => {
  it("is not read for a tool that does not ask for it", async () => {
    const { call, reads } = setUp();
    const result = await call("calc__add");
    expect(result.status).toBe("ok");
    expect(result.output).toBe(3);
    expect(reads()).toBe(0);
  });

  it("is the caller's value when a tool reads it, read each time it is asked", async () => {
    const { call, reads } = setUp();
    expect((await call("disk__where")).output).toBe("/state/instances/a/k/workdir");
    expect(reads()).toBe(1);
    await call("disk__where");
    expect(reads()).toBe(2);
  });

  it("sits beside the call's own fields, and the caller's own fields stay out of the handler's view", async () => {
    const { call } = setUp();
    const keys = (await call("disk__keys")).output as string[];
    expect(keys).toContain("workdir");
    expect(keys).toContain("toolCallId");
    expect(keys).toContain("signal");
    expect(keys).toContain("config");
    expect(keys).not.toContain("parentSignal");
    expect(keys).not.toContain("onPendingCompletion");
  });
});
