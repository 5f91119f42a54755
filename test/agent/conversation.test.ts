import { describe, expect, it } from "bun:test";
import { Conversation } from "../../src/agent/conversation/conversation.ts";
import { validModelView } from "../../src/agent/conversation/model-view.ts";
import { applyMessageEvent } from "../../src/agent/conversation/apply-message-event.ts";
import type { Message } from "../../src/tools/types.ts";
import { storeFor, tempStateRoot, TEST_INSTANCE } from "./support/test-env.ts";

const message = (id: string, data: Message["data"]): Message => ({
  id,
  data,
  metadata: {},
  createdAt: "2026-01-01T00:00:00.000Z",
  source: { type: data.role === "tool" ? "tool" : data.role === "assistant" ? "assistant" : "user" },
});
const user = (id: string, text: string) => message(id, { role: "user", content: text });
const callMessage = (id: string, ...callIds: string[]) =>
  message(id, {
    role: "assistant",
    content: callIds.map((toolCallId) => ({ type: "tool-call" as const, toolCallId, toolName: "t__x", input: {} })),
  });
const resultMessage = (id: string, ...callIds: string[]) =>
  message(id, {
    role: "tool",
    content: callIds.map((toolCallId) => ({
      type: "tool-result" as const,
      toolCallId,
      toolName: "t__x",
      output: { type: "json" as const, value: { status: "ok", output: 1 } },
    })),
  });

describe("Conversation", () => {
  it("applies changes in memory at once and hands them over once, in order, for the next commit", () => {
    const conversation = new Conversation([user("m0", "before")]);
    conversation.emit({ type: "append", message: user("m1", "hi") });
    conversation.emit({ type: "replace", targetId: "m1", message: user("m1", "hello") });
    expect(conversation.messages.map((item) => item.data.content)).toEqual(["before", "hello"]);
    expect(conversation.takeChanges().map((change) => change.type)).toEqual(["append", "replace"]);
    expect(conversation.takeChanges()).toEqual([]);
  });

  it("appends a message id once, and knows its ids without scanning", () => {
    const conversation = new Conversation();
    conversation.emit({ type: "append", message: user("m1", "hi") });
    conversation.emit({ type: "append", message: user("m1", "hi") });
    expect(conversation.messages).toHaveLength(1);
    expect(conversation.has("m1")).toBe(true);
    conversation.emit({ type: "remove", targetId: "m1" });
    expect(conversation.has("m1")).toBe(false);
  });

  it("survives a restart through the store: what was committed is what the next child is handed", async () => {
    const store = storeFor(tempStateRoot());
    const conversation = new Conversation();
    conversation.emit({ type: "append", message: user("m1", "hi") });
    conversation.emit({ type: "append", message: user("m2", "again") });
    await store.commit(TEST_INSTANCE, { changes: conversation.takeChanges() });
    conversation.emit({ type: "append", message: user("m3", "not committed") });
    expect(new Conversation(store.instanceState(TEST_INSTANCE).messages).messages.map((item) => item.id)).toEqual([
      "m1",
      "m2",
    ]);
  });

  it("applies remove and truncate", () => {
    const folded = [
      { type: "remove" as const, targetId: "a" },
      { type: "append" as const, message: user("c", "3") },
    ].reduce<Message[]>((messages, event) => applyMessageEvent(messages, event), [user("a", "1"), user("b", "2")]);
    expect(folded.map((item) => item.id)).toEqual(["b", "c"]);
    expect(applyMessageEvent(folded, { type: "truncate" })).toEqual([]);
  });
});

describe("validModelView", () => {
  it("drops a trailing assistant tool-call message whose results are missing", () => {
    const view = validModelView([user("u", "go"), callMessage("a", "c1")]);
    expect(view.messages.map((item) => item.id)).toEqual(["u"]);
    expect(view.dropped).toEqual(["a"]);
  });

  it("drops partial results together with their unanswered call message", () => {
    const view = validModelView([user("u", "go"), callMessage("a", "c1", "c2"), resultMessage("r", "c1")]);
    expect(view.messages.map((item) => item.id)).toEqual(["u"]);
  });

  it("keeps answered calls and drops orphan tool results", () => {
    const view = validModelView([
      user("u", "go"),
      callMessage("a", "c1"),
      resultMessage("r", "c1"),
      resultMessage("orphan", "zz"),
    ]);
    expect(view.messages.map((item) => item.id)).toEqual(["u", "a", "r"]);
  });
});
