import { beforeAll, describe, expect, it } from "bun:test";
import type { Clock, TimerHandle } from "../../src/shared/clock.ts";
import { fromContextMiddleware } from "../../src/shared/compose.ts";
import { executeToolCall } from "../../src/tools/execute-tool-call.ts";
import { buildCatalog } from "../../src/tools/tool-catalog.ts";
import { ToolRegistry } from "../../src/tools/tool-registry.ts";
import type { ToolCallMiddlewareContext, ToolCatalogItem, ToolResult } from "../../src/tools/types.ts";
import { invocationContext, toolResource } from "./helpers.ts";

const sample = toolResource({
  name: "sample",
  entry: "./sample-tools.ts",
  exports: [
    {
      name: "echo",
      parameters: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
        additionalProperties: false,
      },
    },
    { name: "never", timeoutMs: 5000 },
  ],
});
let registry: ToolRegistry;
let catalog: ToolCatalogItem[];

beforeAll(async () => {
  registry = await ToolRegistry.fromResources([sample]);
  catalog = buildCatalog({ registry, agentTools: [sample] });
});

/** A clock whose timers fire only when the test says so. */
function manualClock() {
  const timers: { callback: () => void; ms: number; cleared: boolean }[] = [];
  const clock: Clock = {
    now: () => 0,
    setTimeout: (callback, ms) => {
      const timer = { callback, ms, cleared: false };
      timers.push(timer);
      return { id: timer } as TimerHandle;
    },
    clearTimeout: (handle) => {
      (handle.id as { cleared: boolean }).cleared = true;
    },
  };
  return { clock, timers };
}

describe("executeToolCall wiring", () => {
  it("arms the export's timeout on the injected clock and answers E_TOOL_TIMEOUT when it fires", async () => {
    const { clock, timers } = manualClock();
    const running = executeToolCall({
      call: { id: "c", name: "sample__never", args: {} },
      catalog,
      registry,
      context: invocationContext(),
      clock,
    });
    await Bun.sleep(0);
    expect(timers.map((timer) => timer.ms)).toEqual([5000]);
    timers[0]!.callback();
    const result = await running;
    expect(result.status === "error" && result.error.code).toBe("E_TOOL_TIMEOUT");
  });

  it("clears the timer when the handler finishes", async () => {
    const { clock, timers } = manualClock();
    const handlerPromise = executeToolCall({
      call: { id: "c", name: "sample__echo", args: { text: "x" } },
      catalog,
      registry,
      context: invocationContext(),
      clock,
    });
    expect((await handlerPromise).status).toBe("ok");
    expect(timers.every((timer) => timer.cleared)).toBe(true);
  });

  it("runs extension-style ctx.next() middleware adapted with fromContextMiddleware, args edits included", async () => {
    const seen: string[] = [];
    const extension = fromContextMiddleware<ToolCallMiddlewareContext, ToolResult>(async (ctx) => {
      seen.push(`before:${ctx.toolName}:${ctx.toolCallId}`);
      ctx.args = { text: String(ctx.args.text).toUpperCase() };
      const result = await ctx.next();
      seen.push(`after:${result.status}`);
      return result;
    });
    const result = await executeToolCall({
      call: { id: "c9", name: "sample__echo", args: { text: "hi" } },
      catalog,
      registry,
      middlewares: [extension],
      context: invocationContext(),
    });
    expect(result).toEqual({ status: "ok", output: { input: { text: "HI" } } });
    expect(seen).toEqual(["before:sample__echo:c9", "after:ok"]);
  });
});
