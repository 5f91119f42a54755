/**
 * A middleware that throws is reported loudly: a warning naming the extension and the hook, and an
 * `extension.failed` runtime event; errors that only passed up through a middleware's next() are not
 * blamed on it. The failure itself keeps its effect (the turn fails; a toolCall throw is that call's error).
 */
import { describe, expect, it } from "bun:test";
import { reportExtensionFailures } from "../../src/agent/extensions/extension-failures.ts";
import { PipelineRegistry } from "../../src/agent/extensions/pipeline-registry.ts";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { createLogger } from "../../src/shared/logger.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { testEnv, userEvent } from "./support/test-env.ts";

function loudHarness(replies: Parameters<typeof scriptedModel>[0]) {
  const scripted = scriptedModel(replies);
  const harness = testEnv({ model: scripted.model });
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger("agent", {
    level: "debug",
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  const pipeline = new PipelineRegistry({
    onFailure: reportExtensionFailures({ logger, runtimeEvents: harness.events }),
  });
  harness.env.pipeline = pipeline;
  return { harness, pipeline, lines, scripted };
}

describe("a throwing extension middleware", () => {
  it("is logged as a warning and recorded as extension.failed, naming the extension and the turn hook", async () => {
    const { harness, pipeline, lines } = loudHarness([]);
    pipeline.register(
      "turn",
      async () => {
        throw new Error("lost my notes");
      },
      { extension: "notes" },
    );
    const { result } = await runTurn({ env: harness.env, event: userEvent("hi") });
    expect(result).toMatchObject({ status: "error", error: { code: "E_AGENT_TURN_FAILED" } });
    const warning = lines.find((line) => line.level === 40);
    expect(warning).toMatchObject({ extension: "notes", hook: "turn", error: "lost my notes" });
    expect(String(warning?.msg)).toContain("Extension/notes");
    const event = harness.events.events.find((candidate) => candidate.type === "extension.failed");
    expect(event).toMatchObject({
      data: { extension: "notes", hook: "turn" },
      error: { message: "lost my notes" },
      turnId: result.turnId,
    });
  });

  it("names the step hook and step index, and the toolCall hook and tool for their throws", async () => {
    const { harness, pipeline } = loudHarness([{ toolCalls: [{ name: "echo__say", args: {} }] }, { text: "done" }]);
    harness.registerTool({ name: "echo__say", parameters: { type: "object", properties: {} } }, () => "said");
    pipeline.register(
      "toolCall",
      async () => {
        throw new Error("no tools today");
      },
      { extension: "gate" },
    );
    const { result } = await runTurn({ env: harness.env, event: userEvent("go") });
    expect(result.status).toBe("ok");
    expect(harness.events.events.find((event) => event.type === "extension.failed")).toMatchObject({
      toolName: "echo__say",
      data: { extension: "gate", hook: "toolCall" },
    });
    expect(harness.events.events.find((event) => event.type === "tool.failed")).toBeDefined();

    const second = loudHarness([]);
    second.pipeline.register(
      "step",
      async () => {
        throw new TypeError("bad step");
      },
      { extension: "stepper" },
    );
    await runTurn({ env: second.harness.env, event: userEvent("go") });
    expect(second.harness.events.events.find((event) => event.type === "extension.failed")).toMatchObject({
      stepIndex: 0,
      data: { extension: "stepper", hook: "step" },
    });
  });

  it("does not blame an outer middleware for a failure that came up through its next()", async () => {
    const { harness, pipeline } = loudHarness([]);
    pipeline.register("turn", (ctx) => ctx.next(), { extension: "outer", priority: -10 });
    pipeline.register(
      "turn",
      async () => {
        throw new Error("inner broke");
      },
      { extension: "inner" },
    );
    await runTurn({ env: harness.env, event: userEvent("hi") });
    const failures = harness.events.events.filter((event) => event.type === "extension.failed");
    expect(failures.map((event) => event.data?.extension)).toEqual(["inner"]);
  });

  it("blames a middleware that calls next() twice", async () => {
    const { harness, pipeline } = loudHarness([{ text: "once" }]);
    pipeline.register(
      "step",
      async (ctx) => {
        await ctx.next();
        return ctx.next();
      },
      { extension: "greedy" },
    );
    await runTurn({ env: harness.env, event: userEvent("hi") });
    expect(harness.events.events.find((event) => event.type === "extension.failed")).toMatchObject({
      data: { extension: "greedy", hook: "step" },
    });
  });
});
