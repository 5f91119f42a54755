/** `api.model` calls the agent's own model once, with its params, outside the conversation and without tools. */
import { describe, expect, it } from "bun:test";
import { APICallError } from "ai";
import { extensionModel } from "../../src/agent/model/extension-model.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";

describe("extensionModel", () => {
  it("sends the system and prompt with the agent's params and returns the text and token usage", async () => {
    const scripted = scriptedModel([{ text: "a short summary", usage: { input: 120, output: 7 } }]);
    const model = extensionModel({
      model: scripted.model,
      streaming: false,
      params: { temperature: 0.2, maxTokens: 300 },
      logger: silentLogger(),
    });
    const result = await model.generateText({ system: "Summarise.", prompt: "long history", maxOutputTokens: 100 });
    expect(result).toEqual({ text: "a short summary", usage: { inputTokens: 120, outputTokens: 7 } });
    const call = scripted.calls[0]!;
    expect(call.prompt[0]).toEqual({ role: "system", content: "Summarise." });
    expect(JSON.stringify(call.prompt[1])).toContain("long history");
    expect(call.temperature).toBe(0.2);
    expect(call.maxOutputTokens).toBe(100);
    expect(call.tools).toBeUndefined();
    scripted.assertDone();
  });

  it("retries a retryable failure like a step does, then rejects with the model failure's code", async () => {
    const overloaded = () =>
      new APICallError({
        message: "overloaded",
        url: "http://x",
        requestBodyValues: {},
        statusCode: 503,
        isRetryable: true,
      });
    const scripted = scriptedModel([
      { error: overloaded() },
      { text: "second time lucky" },
      { error: overloaded() },
      { error: overloaded() },
    ]);
    const model = extensionModel({
      model: scripted.model,
      streaming: false,
      params: {},
      retryPolicy: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 1 },
      logger: silentLogger(),
    });
    expect((await model.generateText({ prompt: "p" })).text).toBe("second time lucky");
    await expect(model.generateText({ prompt: "p" })).rejects.toMatchObject({
      code: expect.stringMatching(/^E_MODEL_/),
    });
  });
});
