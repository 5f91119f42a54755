import { describe, expect, it } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConversationStore } from "../../src/agent/conversation/conversation-store.ts";
import { validModelView } from "../../src/agent/conversation/model-view.ts";
import { foldMessageEvents } from "../../src/agent/conversation/message-event.ts";
import type { Message } from "../../src/tools/types.ts";
import { tempStateRoot } from "./support/test-env.ts";

const message = (id: string, data: Message["data"]): Message => ({ id, data, metadata: {}, createdAt: "2026-01-01T00:00:00.000Z", source: { type: data.role === "tool" ? "tool" : data.role === "assistant" ? "assistant" : "user" } });
const user = (id: string, text: string) => message(id, { role: "user", content: text });
const callMessage = (id: string, ...callIds: string[]) => message(id, { role: "assistant", content: callIds.map((toolCallId) => ({ type: "tool-call" as const, toolCallId, toolName: "t__x", input: {} })) });
const resultMessage = (id: string, ...callIds: string[]) => message(id, { role: "tool", content: callIds.map((toolCallId) => ({ type: "tool-result" as const, toolCallId, toolName: "t__x", output: { type: "json" as const, value: { status: "ok", output: 1 } } })) });

function paths() {
  const root = tempStateRoot();
  return { basePath: join(root, "base.jsonl"), eventsPath: join(root, "events.jsonl") };
}

describe("ConversationStore", () => {
  it("appends events durably and replays base + events on open", () => {
    const files = paths();
    const store = ConversationStore.open(files);
    store.emit({ type: "append", message: user("m1", "hi") }, { turnId: "t1", eventId: "e1" });
    store.fold();
    store.emit({ type: "append", message: user("m2", "again") }, { turnId: "t2", eventId: "e2" });
    const reopened = ConversationStore.open(files);
    expect(reopened.messages.map((item) => item.id)).toEqual(["m1", "m2"]);
    expect(reopened.pendingEvents.map((line) => line.eventId)).toEqual(["e2"]);
  });

  it("folds events into base atomically and clears events", () => {
    const files = paths();
    const store = ConversationStore.open(files);
    store.emit({ type: "append", message: user("m1", "hi") }, { turnId: "t1", eventId: "e1" });
    store.emit({ type: "replace", targetId: "m1", message: user("m1", "hello") }, { turnId: "t1", eventId: "e1" });
    store.fold();
    expect(readFileSync(files.eventsPath, "utf8")).toBe("");
    expect(readFileSync(files.basePath, "utf8").trim().split("\n")).toHaveLength(1);
    expect(ConversationStore.open(files).messages[0]?.data.content).toBe("hello");
  });

  it("ignores and reports a torn last line instead of crashing", () => {
    const files = paths();
    const store = ConversationStore.open(files);
    store.emit({ type: "append", message: user("m1", "hi") }, { turnId: "t1", eventId: "e1" });
    appendFileSync(files.eventsPath, '{"turnId":"t1","eventId":"e1","event":{"type":"app');
    const reopened = ConversationStore.open(files);
    expect(reopened.messages.map((item) => item.id)).toEqual(["m1"]);
    expect(reopened.skipped).toHaveLength(1);
    expect(reopened.skipped[0]?.torn).toBe(true);
  });

  it("replays events already folded into base without duplicating messages", () => {
    const files = paths();
    const store = ConversationStore.open(files);
    store.emit({ type: "append", message: user("m1", "hi") }, { turnId: "t1", eventId: "e1" });
    const events = readFileSync(files.eventsPath, "utf8");
    store.fold();
    writeFileSync(files.eventsPath, events); // crash between "write base" and "clear events"
    expect(ConversationStore.open(files).messages.map((item) => item.id)).toEqual(["m1"]);
  });

  it("applies remove and truncate", () => {
    const folded = foldMessageEvents([user("a", "1"), user("b", "2")], [{ type: "remove", targetId: "a" }, { type: "append", message: user("c", "3") }]);
    expect(folded.map((item) => item.id)).toEqual(["b", "c"]);
    expect(foldMessageEvents(folded, [{ type: "truncate" }])).toEqual([]);
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
    const view = validModelView([user("u", "go"), callMessage("a", "c1"), resultMessage("r", "c1"), resultMessage("orphan", "zz")]);
    expect(view.messages.map((item) => item.id)).toEqual(["u", "a", "r"]);
  });
});
