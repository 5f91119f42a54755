import { describe, expect, it } from "bun:test";
import { APICallError } from "ai";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import type { StepResult } from "../../src/agent/loop/turn-result.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { testEnv, userEvent } from "./support/test-env.ts";
import { reply } from "../helpers/outcomes.ts";
import { commits, nextStepAfter } from "../../src/agent/loop/next-step.ts";

const echoItem = {
  name: "echo__say",
  description: "echo",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

describe("runTurn", () => {
  it("ends the turn when the model answers without tool calls", async () => {
    const scripted = scriptedModel([{ text: "hello" }]);
    const { env } = testEnv({ model: scripted.model, systemPrompt: "SYSTEM-PROMPT" });
    const { result } = await runTurn({ env, event: userEvent("hi") });
    expect(result).toMatchObject({ status: "ok", response: "hello", finishReason: "stop", steps: 1 });
    expect(scripted.calls[0]?.prompt[0]).toEqual({ role: "system", content: "SYSTEM-PROMPT" });
    expect(env.conversation.messages.map((message) => message.data.role)).toEqual(["user", "assistant"]);
    scripted.assertDone();
  });

  it("shows turn middleware text_response where the turn's own outcome keeps stop", async () => {
    const scripted = scriptedModel([{ text: "hello" }]);
    const harness = testEnv({ model: scripted.model });
    const seen: string[] = [];
    harness.env.pipeline.register("turn", async (ctx) => {
      const result = await ctx.next();
      seen.push(`outer:${result.finishReason}`);
      return result;
    });
    harness.env.pipeline.register("turn", async (ctx) => {
      const result = await ctx.next();
      seen.push(`inner:${result.finishReason}`);
      return { ...result, finishReason: "text_response" };
    });
    harness.env.pipeline.register("step", async (ctx) => {
      const result = await ctx.next();
      seen.push(`step:${result.finishReason}`);
      return result;
    });
    const { result } = await runTurn({ env: harness.env, event: userEvent("hi") });
    expect(seen).toEqual(["step:stop", "inner:text_response", "outer:text_response"]);
    expect(result).toMatchObject({ status: "ok", response: "hello", finishReason: "stop" });
  });

  it("runs tool calls, appends their results and asks the model again", async () => {
    const scripted = scriptedModel([
      { toolCalls: [{ id: "c1", name: "echo__say", args: { text: "x" } }] },
      { text: "done" },
    ]);
    const harness = testEnv({ model: scripted.model });
    harness.registerTool(echoItem, (_ctx, input) => ({ said: input.text ?? null }));
    const { result } = await runTurn({ env: harness.env, event: userEvent("go") });
    expect(result).toMatchObject({ status: "ok", response: "done", steps: 2 });
    const second = scripted.calls[1]!.prompt;
    const toolMessage = second.find((message) => message.role === "tool");
    expect(toolMessage?.content[0]).toMatchObject({
      type: "tool-result",
      toolCallId: "c1",
      output: { type: "json", value: { status: "ok", output: { said: "x" } } },
    });
    expect(scripted.calls[0]?.tools?.map((tool) => tool.name)).toEqual(["echo__say"]);
    scripted.assertDone();
  });

  it("stops at maxStepsPerTurn with finishReason max_steps and the last text", async () => {
    const call = { text: "working", toolCalls: [{ name: "echo__say", args: { text: "again" } }] };
    const scripted = scriptedModel([call, call]);
    const harness = testEnv({ model: scripted.model, maxStepsPerTurn: 2 });
    harness.registerTool(echoItem, () => "ok");
    const { result } = await runTurn({ env: harness.env, event: userEvent("loop") });
    expect(result).toMatchObject({ status: "ok", finishReason: "max_steps", response: "working", steps: 2 });
    scripted.assertDone();
  });

  it("rebuilds the catalog every step and lets step middleware edit it", async () => {
    const scripted = scriptedModel([{ toolCalls: [{ name: "echo__say", args: { text: "a" } }] }, { text: "end" }]);
    const harness = testEnv({ model: scripted.model });
    harness.registerTool(echoItem, () => "ok");
    const seen: string[][] = [];
    harness.env.pipeline.register("step", async (ctx) => {
      seen.push(ctx.toolCatalog.map((item) => item.name));
      if (ctx.stepIndex === 1) ctx.toolCatalog = [];
      return ctx.next();
    });
    await runTurn({ env: harness.env, event: userEvent("go") });
    expect(seen).toEqual([["echo__say"], ["echo__say"]]);
    expect(scripted.calls[1]?.tools ?? []).toEqual([]);
  });

  it("rejects a tool call outside this step's catalog as a tool error the model reads", async () => {
    const scripted = scriptedModel([
      { toolCalls: [{ id: "c9", name: "echo__say", args: { text: "a" } }] },
      { text: "ok" },
    ]);
    const harness = testEnv({ model: scripted.model });
    harness.registerTool(echoItem, () => "ran");
    harness.env.pipeline.register("step", async (ctx) => {
      ctx.toolCatalog = [];
      return ctx.next();
    });
    await runTurn({ env: harness.env, event: userEvent("go") });
    const toolMessage = scripted.calls[1]!.prompt.find((message) => message.role === "tool");
    expect(toolMessage?.content[0]).toMatchObject({
      output: { value: { status: "error", error: { code: "E_TOOL_NOT_IN_CATALOG" } } },
    });
  });

  it("runs turn, step and toolCall middleware in priority order around the core", async () => {
    const scripted = scriptedModel([{ toolCalls: [{ name: "echo__say", args: { text: "a" } }] }, { text: "end" }]);
    const harness = testEnv({ model: scripted.model });
    harness.registerTool(echoItem, () => "ok");
    const order: string[] = [];
    const pipeline = harness.env.pipeline;
    pipeline.register(
      "turn",
      async (ctx) => {
        order.push("turn:late>");
        const r = await ctx.next();
        order.push("<turn:late");
        return r;
      },
      { priority: 10 },
    );
    pipeline.register(
      "turn",
      async (ctx) => {
        order.push("turn:early>");
        const r = await ctx.next();
        order.push("<turn:early");
        return r;
      },
      { priority: -5 },
    );
    pipeline.register("step", async (ctx) => {
      order.push(`step${ctx.stepIndex}>`);
      return ctx.next();
    });
    pipeline.register("toolCall", async (ctx) => {
      order.push(`tool:${ctx.toolName}`);
      ctx.args = { text: "rewritten" };
      return ctx.next();
    });
    await runTurn({ env: harness.env, event: userEvent("go") });
    expect(order).toEqual([
      "turn:early>",
      "turn:late>",
      "step0>",
      "tool:echo__say",
      "step1>",
      "<turn:late",
      "<turn:early",
    ]);
  });

  it("lets step middleware keep the turn going after a text answer", async () => {
    const scripted = scriptedModel([{ text: "first" }, { text: "second" }]);
    const harness = testEnv({ model: scripted.model });
    let nudged = false;
    harness.env.pipeline.register("step", async (ctx) => {
      const result: StepResult = await ctx.next();
      if (!nudged) {
        nudged = true;
        ctx.emitMessageEvent({
          type: "append",
          message: {
            id: "nudge",
            data: { role: "user", content: "continue" },
            metadata: {},
            createdAt: new Date().toISOString(),
            source: { type: "extension" },
          },
        });
        return { ...result, continueTurn: true };
      }
      return result;
    });
    const { result } = await runTurn({ env: harness.env, event: userEvent("go") });
    expect(result.response).toBe("second");
    scripted.assertDone();
  });

  it("retries a 429 model error and then succeeds", async () => {
    const rateLimited = new APICallError({
      message: "slow down",
      url: "http://x",
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: { "retry-after": "0" },
      isRetryable: true,
    });
    const scripted = scriptedModel([{ error: rateLimited }, { text: "after retry" }]);
    const harness = testEnv({ model: scripted.model });
    const { result } = await runTurn({ env: harness.env, event: userEvent("hi") });
    expect(result).toMatchObject({ status: "ok", response: "after retry" });
    expect(harness.events.events.some((event) => event.type === "model.retried")).toBe(true);
  });

  it("ends the turn with a structured failure when model errors persist", async () => {
    const serverError = () => ({
      error: new APICallError({
        message: "boom",
        url: "http://x",
        requestBodyValues: {},
        statusCode: 503,
        isRetryable: true,
      }),
    });
    const scripted = scriptedModel([serverError(), serverError(), serverError(), serverError()]);
    const harness = testEnv({ model: scripted.model });
    const { result } = await runTurn({ env: harness.env, event: userEvent("hi") });
    expect(result).toMatchObject({ status: "error", finishReason: "error", error: { code: "E_MODEL_SERVER_ERROR" } });
    expect(harness.events.events.map((event) => event.type)).toContain("turn.failed");
    scripted.assertDone();
  });

  it("does not retry an authentication failure", async () => {
    const scripted = scriptedModel([
      {
        error: new APICallError({
          message: "bad key",
          url: "http://x",
          requestBodyValues: {},
          statusCode: 401,
          isRetryable: false,
        }),
      },
    ]);
    const { result } = await runTurn({ env: testEnv({ model: scripted.model }).env, event: userEvent("hi") });
    expect(result.error?.code).toBe("E_MODEL_AUTH_FAILED");
    scripted.assertDone();
  });

  it("records spans and token usage in runtime events", async () => {
    const scripted = scriptedModel([{ text: "hello", usage: { input: 7, output: 3 } }]);
    const harness = testEnv({ model: scripted.model });
    await runTurn({ env: harness.env, event: userEvent("hi") });
    const [turnStarted, stepStarted, modelCompleted, stepCompleted, turnCompleted] = harness.events.events;
    expect([
      turnStarted?.type,
      stepStarted?.type,
      modelCompleted?.type,
      stepCompleted?.type,
      turnCompleted?.type,
    ]).toEqual(["turn.started", "step.started", "model.completed", "step.completed", "turn.completed"]);
    expect(stepStarted?.parentSpanId).toBe(turnStarted?.spanId);
    // The model call is a span of its own under the step's.
    expect(modelCompleted?.parentSpanId).toBe(stepStarted?.spanId);
    expect(modelCompleted?.spanId).not.toBe(stepStarted?.spanId);
    expect(modelCompleted).toMatchObject({
      usage: { inputTokens: 7, outputTokens: 3 },
      data: { provider: scripted.model.provider, model: scripted.model.modelId, streamed: false, finishReason: "stop" },
    });
    expect(stepCompleted?.usage).toEqual({ inputTokens: 7, outputTokens: 3 });
    expect(turnCompleted?.usage).toEqual({ inputTokens: 7, outputTokens: 3 });
  });

  it("shows replies to async requests to the model before the next step", async () => {
    const scripted = scriptedModel([{ text: "noted" }]);
    const harness = testEnv({ model: scripted.model });
    harness.env.pendingResults?.add(
      reply({ correlationId: "corr_1", agent: "worker", instanceKey: "main", response: "42 files" }),
    );
    await runTurn({ env: harness.env, event: userEvent("what came back?") });
    const texts = scripted.calls[0]!.prompt.filter((message) => message.role === "user").map((message) =>
      JSON.stringify(message.content),
    );
    expect(texts.some((text) => text.includes("42 files"))).toBe(true);
    expect(harness.env.pendingResults?.list()).toEqual([]);
  });
});

describe("nextStepAfter", () => {
  const step = (fields: Partial<StepResult>): StepResult => ({
    stepIndex: 0,
    text: "",
    toolCalls: [],
    toolResults: [],
    finishReason: "stop",
    usage: { inputTokens: 0, outputTokens: 0 },
    continueTurn: false,
    ...fields,
  });
  const live = new AbortController().signal;

  it("runs again while the step asks to continue, ends final with the step's text otherwise", () => {
    expect(nextStepAfter({ step: step({ continueTurn: true }), signal: live })).toEqual({ type: "run_again" });
    expect(nextStepAfter({ step: step({ text: "done", finishReason: "stop" }), signal: live })).toEqual({
      type: "final",
      response: "done",
      finishReason: "stop",
    });
  });

  it("stops aborted once the turn's signal fired, whatever the step wanted, and an aborted turn does not commit", () => {
    const aborted = AbortSignal.abort();
    expect(nextStepAfter({ step: step({ continueTurn: true }), signal: aborted })).toEqual({ type: "aborted" });
    expect(commits({ type: "aborted", result: 1 })).toBe(false);
    expect(commits({ type: "completed", result: 1 })).toBe(true);
  });
});
