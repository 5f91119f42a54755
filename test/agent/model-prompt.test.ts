/**
 * ModelPrompt: each message is converted for the model once and reused; only appends keep the cache, any other
 * change or a broken tail rebuilds it from the valid view, and results that follow results join one tool message.
 */
import { describe, expect, it } from "bun:test";
import type { ModelMessage } from "ai";
import { Conversation } from "../../src/agent/conversation/conversation.ts";
import { createMessage } from "../../src/agent/conversation/message-factory.ts";
import { ModelPrompt } from "../../src/agent/model/model-prompt.ts";

let counter = 0;
const message = (data: ModelMessage) => createMessage({ id: `m${++counter}`, data, source: { type: "user" }, now: 0 });
const user = (text: string) => message({ role: "user", content: text });
const calls = (...ids: string[]) =>
  message({
    role: "assistant",
    content: ids.map((id) => ({ type: "tool-call" as const, toolCallId: id, toolName: "t__x", input: {} })),
  });
const results = (...ids: string[]) =>
  message({
    role: "tool",
    content: ids.map((id) => ({
      type: "tool-result" as const,
      toolCallId: id,
      toolName: "t__x",
      output: { type: "json" as const, value: { ok: id } },
    })),
  });
const model = { supportedUrls: {} };

describe("ModelPrompt", () => {
  it("converts each message once: a later step reuses what it sent before and converts only the new tail", async () => {
    const conversation = new Conversation([user("hello")]);
    const prompt = new ModelPrompt(model);
    const first = await prompt.build({ system: "S", conversation });
    expect(first.map((entry) => entry.role)).toEqual(["system", "user"]);
    conversation.emit({ type: "append", message: calls("c1") });
    conversation.emit({ type: "append", message: results("c1") });
    const second = await prompt.build({ system: "S2", conversation });
    expect(second.map((entry) => entry.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(second[0]).toEqual({ role: "system", content: "S2" });
    expect(second[1]).toBe(first[1]!); // the same converted object: not converted again
  });

  it("rebuilds after a change other than an append, and leaves out a tool call that has no result", async () => {
    const greeting = user("hello");
    const conversation = new Conversation([greeting, calls("c1"), results("c1")]);
    const prompt = new ModelPrompt(model);
    const before = await prompt.build({ system: "S", conversation });
    conversation.emit({ type: "remove", targetId: greeting.id });
    const after = await prompt.build({ system: "S", conversation });
    expect(after.map((entry) => entry.role)).toEqual(["system", "assistant", "tool"]);
    expect(after[1]).not.toBe(before[2]!);

    conversation.emit({ type: "append", message: calls("c2") }); // crashed before its result was stored
    conversation.emit({ type: "append", message: user("still there?") });
    expect((await prompt.build({ system: "S", conversation })).map((entry) => entry.role)).toEqual([
      "system",
      "assistant",
      "tool",
      "user",
    ]);
  });

  it("joins results that follow results into one tool message, as the SDK's own conversion does", async () => {
    const conversation = new Conversation([user("go"), calls("c1", "c2"), results("c1")]);
    const prompt = new ModelPrompt(model);
    await prompt.build({ system: "S", conversation });
    conversation.emit({ type: "append", message: results("c2") });
    const built = await prompt.build({ system: "S", conversation });
    expect(built.map((entry) => entry.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect((built[3]!.content as { toolCallId: string }[]).map((part) => part.toolCallId)).toEqual(["c1", "c2"]);
  });
});
