import { describe, expect, it } from "bun:test";
import { generateText } from "ai";
import { scriptedModel } from "../helpers/scripted-model.ts";

describe("scripted model", () => {
  it("answers from its queue in order", async () => {
    const scripted = scriptedModel([{ text: "one" }, { toolCalls: [{ id: "c", name: "t", args: { a: 1 } }] }]);
    expect((await generateText({ model: scripted.model, prompt: "x" })).text).toBe("one");
    const second = await generateText({ model: scripted.model, prompt: "x" });
    expect(second.toolCalls.map((call) => call.input)).toEqual([{ a: 1 }]);
    scripted.assertDone();
  });

  it("fails loudly when called once too often", async () => {
    const scripted = scriptedModel([]);
    await expect(generateText({ model: scripted.model, prompt: "x", maxRetries: 0 })).rejects.toThrow();
    expect(() => scripted.assertDone()).toThrow();
  });

  it("reports unused replies", () => {
    expect(() => scriptedModel([{ text: "never" }]).assertDone()).toThrow();
  });
});
