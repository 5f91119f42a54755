import { describe, expect, it } from "bun:test";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { tempStateRoot, testEnv, userEvent } from "./support/test-env.ts";

const sleepItem = { name: "work__run", description: "does work", parameters: { type: "object", properties: {} } };

describe("an aborted turn", () => {
  it("keeps the tool call it committed before running it, stores no result for it, and its redelivery tells the model the call was interrupted", async () => {
    const stateRoot = tempStateRoot();
    const event = userEvent("do the work");
    const first = scriptedModel([{ toolCalls: [{ id: "c1", name: "work__run" }] }]);
    const aborted = testEnv({ model: first.model, stateRoot });
    const shutdown = new AbortController();
    aborted.registerTool(sleepItem, async (ctx) => {
      shutdown.abort(new Error("shutdown grace period over"));
      await new Promise((resolve) =>
        ctx.signal.aborted ? resolve(undefined) : ctx.signal.addEventListener("abort", resolve),
      );
      return "never seen";
    });
    const ending = await runTurn({ env: aborted.env, event, signal: shutdown.signal });
    expect(ending.type).toBe("aborted");
    expect(ending.result).toMatchObject({
      status: "error",
      finishReason: "aborted",
      error: { code: "E_AGENT_TURN_ABORTED" },
    });
    const stored = JSON.stringify(aborted.durableMessages());
    expect(stored).toContain("do the work");
    expect(stored).toContain("work__run");
    expect(stored).not.toContain("tool-result");
    first.assertDone();

    const second = scriptedModel([{ toolCalls: [{ id: "c2", name: "work__run" }] }, { text: "worked" }]);
    const redelivered = testEnv({ model: second.model, stateRoot });
    const runs: string[] = [];
    redelivered.registerTool(sleepItem, () => {
      runs.push("ran");
      return "done";
    });
    const { result: resumed } = await runTurn({ env: redelivered.env, event, redelivery: true });
    expect(resumed).toMatchObject({ status: "ok", response: "worked" });
    expect(second.calls[0]!.prompt.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(JSON.stringify(second.calls[0]!.prompt)).toContain("E_TOOL_INTERRUPTED");
    // The model chose to run it again: it runs once, as asked.
    expect(runs).toEqual(["ran"]);
    second.assertDone();
  });
});
