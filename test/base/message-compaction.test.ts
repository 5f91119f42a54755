/**
 * message-compaction summarises the older part of a long conversation through the agent's own model before a
 * turn, replacing it by the summary durably; it keeps tool exchanges whole, leaves the conversation alone when
 * the model cannot summarise, and only removes without a summary when appendSummary is false.
 */
import { describe, expect, it } from "bun:test";
import { APICallError } from "ai";
import { validModelView } from "../../src/agent/conversation/model-view.ts";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { keepFrom, messageAsText } from "../../src/base/extensions/message-compaction.ts";
import type { Message } from "../../src/tools/types.ts";
import { userEvent } from "../agent/support/test-env.ts";
import { scriptedModel, type ScriptedReply } from "../helpers/scripted-model.ts";
import { baseExtensionUse, withBaseExtensions } from "./extension-harness.ts";

const isSummaryCall = (options: { prompt: { role: string; content: unknown }[] }) =>
  String(options.prompt[0]?.content ?? "").startsWith("You condense");

/** Answers summary calls with `summary`, turns with their input echoed. */
function model(summary: ScriptedReply = { text: "Alice wants a blue rocket by Friday." }) {
  const summaries: string[] = [];
  const scripted = scriptedModel();
  const answer = (options: Parameters<Extract<ScriptedReply, (...args: never[]) => unknown>>[0]): ScriptedReply => {
    if (isSummaryCall(options)) {
      summaries.push(JSON.stringify(options.prompt));
      return summary;
    }
    return { text: `reply ${scripted.calls.length}` };
  };
  for (let index = 0; index < 20; index++) scripted.push(answer);
  return { scripted, summaries };
}

describe("message-compaction", () => {
  it("replaces the older turns with a summary written by the agent's model", async () => {
    const { scripted, summaries } = model();
    const harness = await withBaseExtensions({
      model: scripted.model,
      uses: [baseExtensionUse("message-compaction", { maxMessages: 4, retainLastMessages: 2 })],
    });
    for (const input of ["I want a rocket", "make it blue", "by Friday"])
      await runTurn({ env: harness.env, event: userEvent(input) });
    expect(summaries).toEqual([]);
    await runTurn({ env: harness.env, event: userEvent("status?") });
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toContain("I want a rocket");
    expect(summaries[0]).toContain("make it blue");
    const messages = await harness.committed();
    expect(messageAsText(messages[0] as Message)).toBe(
      "[message-compaction] Summary of the 4 earlier messages of this conversation:\nAlice wants a blue rocket by Friday.",
    );
    expect(messages[0]?.metadata).toMatchObject({ "compaction.summary": true, "compaction.removedCount": 4 });
    expect(messages.slice(1).map((message) => messageAsText(message))).toEqual([
      "by Friday",
      expect.stringMatching(/^reply/),
      "status?",
      expect.stringMatching(/^reply/),
    ]);
    const turnCall = scripted.calls.at(-1)!;
    expect(JSON.stringify(turnCall.prompt)).toContain("Alice wants a blue rocket by Friday.");
    expect(JSON.stringify(turnCall.prompt)).not.toContain("I want a rocket");
  });

  it("never cuts between a tool call and its result", () => {
    const message = (id: string, role: "user" | "assistant" | "tool", call?: string): Message => {
      const content =
        role === "user"
          ? "x"
          : role === "tool"
            ? [{ type: "tool-result", toolCallId: call, toolName: "t__x", output: { type: "json", value: 1 } }]
            : call === undefined
              ? [{ type: "text", text: "x" }]
              : [{ type: "tool-call", toolCallId: call, toolName: "t__x", input: {} }];
      return { id, data: { role, content } as Message["data"], metadata: {}, createdAt: "", source: { type: role } };
    };
    const messages = [
      message("u1", "user"),
      message("a1", "assistant", "c1"),
      message("t1", "tool", "c1"),
      message("a2", "assistant", "c2"),
      message("t2", "tool", "c2"),
      message("a3", "assistant"),
      message("u2", "user"),
      message("a4", "assistant"),
    ];
    for (let retain = 0; retain <= messages.length; retain++) {
      const cut = keepFrom(messages, retain);
      expect(cut === 0 || messages[cut]?.data.role === "user").toBe(true);
      expect(validModelView(messages.slice(cut)).dropped).toEqual([]);
    }
  });

  it("leaves the conversation as it is, with a warning, when the model cannot summarise", async () => {
    const { scripted } = model({
      error: new APICallError({
        message: "bad request",
        url: "http://x",
        requestBodyValues: {},
        statusCode: 400,
        isRetryable: false,
      }),
    });
    const harness = await withBaseExtensions({
      model: scripted.model,
      uses: [baseExtensionUse("message-compaction", { maxMessages: 2, retainLastMessages: 0 })],
    });
    for (const input of ["one", "two"]) await runTurn({ env: harness.env, event: userEvent(input) });
    const { result } = await runTurn({ env: harness.env, event: userEvent("three") });
    expect(result.status).toBe("ok");
    expect(
      (await harness.committed()).map((message) => messageAsText(message)).filter((text) => !text.startsWith("reply")),
    ).toEqual(["one", "two", "three"]);
    expect(harness.logs.some((line) => line.level === 40 && String(line.msg).includes("could not summarise"))).toBe(
      true,
    );
  });

  it("only removes old messages when appendSummary is false, and summarises everything in truncate mode", async () => {
    const removing = model();
    const harness = await withBaseExtensions({
      model: removing.scripted.model,
      uses: [baseExtensionUse("message-compaction", { maxMessages: 2, retainLastMessages: 0, appendSummary: false })],
    });
    for (const input of ["one", "two", "three"]) await runTurn({ env: harness.env, event: userEvent(input) });
    expect(removing.summaries).toEqual([]);
    expect((await harness.committed()).map((message) => messageAsText(message))).toEqual([
      "two",
      expect.stringMatching(/^reply/),
      "three",
      expect.stringMatching(/^reply/),
    ]);

    const truncating = model();
    const second = await withBaseExtensions({
      model: truncating.scripted.model,
      uses: [baseExtensionUse("message-compaction", { maxMessages: 2, mode: "truncate" })],
    });
    for (const input of ["one", "two", "three"]) await runTurn({ env: second.env, event: userEvent(input) });
    expect(truncating.summaries).toHaveLength(1);
    const kept = (await second.committed()).map((message) => messageAsText(message));
    expect(kept[0]).toStartWith("[message-compaction] Summary of the 4 earlier messages");
    expect(kept.slice(1)).toEqual(["three", expect.stringMatching(/^reply/)]);
  });
});
