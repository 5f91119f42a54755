/** Step middleware may add to the system prompt of its own model call; the next step starts from the Agent's again. */
import { describe, expect, it } from "bun:test";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { testEnv, userEvent } from "./support/test-env.ts";

describe("ctx.systemPrompt in step middleware", () => {
  it("starts as the Agent's prompt every step and reaches the model as edited", async () => {
    const scripted = scriptedModel([{ toolCalls: [{ name: "noop__run", args: {} }] }, { text: "done" }]);
    const harness = testEnv({ model: scripted.model, systemPrompt: "BASE" });
    harness.registerTool({ name: "noop__run", parameters: { type: "object", properties: {} } }, () => "ok");
    const seen: string[] = [];
    harness.env.pipeline.register("step", async (ctx) => {
      seen.push(ctx.systemPrompt);
      ctx.systemPrompt = `${ctx.systemPrompt}\n\n[step ${ctx.stepIndex}]`;
      return ctx.next();
    });
    await runTurn({ env: harness.env, event: userEvent("go") });
    expect(seen).toEqual(["BASE", "BASE"]);
    expect(scripted.calls.map((call) => call.prompt[0])).toEqual([
      { role: "system", content: "BASE\n\n[step 0]" },
      { role: "system", content: "BASE\n\n[step 1]" },
    ]);
  });
});
