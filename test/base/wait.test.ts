import { describe, expect, it } from "bun:test";
import { handlers } from "../../src/base/tools/wait.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { invocationContext } from "../tools/helpers.ts";
import { baseTools, errorOf, okOutput } from "./base-tools.ts";

function context(signal: AbortSignal, config = {}): ToolContext {
  return { ...invocationContext(), toolCallId: "c1", signal, config };
}

describe("wait__seconds", () => {
  it("waits for the given time", async () => {
    const tools = await baseTools();
    const output = okOutput(await tools.call("wait__seconds", { seconds: 0.05 }));
    expect(output.waitedMs as number).toBeGreaterThanOrEqual(45);
    expect(output.capped).toBe(false);
  });

  it("caps the wait at config.maxSeconds", async () => {
    const output = (await handlers.seconds!(context(new AbortController().signal, { maxSeconds: 0.02 }), {
      seconds: 100,
    })) as { waitedMs: number; capped: boolean };
    expect(output.capped).toBe(true);
    expect(output.waitedMs).toBeLessThan(1000);
  });

  it("ends early when ctx.signal fires", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await expect(Promise.resolve(handlers.seconds!(context(controller.signal), { seconds: 30 }))).rejects.toMatchObject(
      { code: "E_WAIT_ABORTED" },
    );
  });

  it("refuses negative, too long or non-numeric waits", async () => {
    const tools = await baseTools();
    for (const seconds of [-1, 301, "5"])
      expect(errorOf(await tools.call("wait__seconds", { seconds })).code).toBe("E_TOOL_INVALID_ARGS");
  });
});
