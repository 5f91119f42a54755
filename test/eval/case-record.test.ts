/**
 * What a case's report keeps of its run (case-record.ts): every instance's conversation with the swarm's secret
 * values redacted and each tool call's arguments and tool result bounded to 4 KiB of JSON (as runtime events are),
 * the text and the other parts left as they were, and the messages and events capped in count, saying how many
 * there were.
 */
import { describe, expect, it } from "bun:test";
import { caseRecord, MAX_CASE_EVENTS, MAX_CASE_MESSAGES } from "../../src/eval/case-record.ts";
import type { Message } from "../../src/protocol/conversation.ts";
import { MAX_DATA_FIELD_BYTES } from "../../src/protocol/public-runtime-event.ts";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";

const SECRET = "sk-very-secret-value";
const message = (id: string, data: unknown): Message =>
  ({ id, data, metadata: {}, createdAt: "2026-11-27T10:00:00.000Z", source: { type: "assistant" } }) as Message;

describe("a case's record", () => {
  it("redacts the secrets and bounds tool arguments and results, leaving text alone", () => {
    const big = "x".repeat(MAX_DATA_FIELD_BYTES * 3);
    const record = caseRecord({
      secrets: [SECRET],
      events: [],
      threads: [
        {
          agent: "coordinator",
          instanceKey: "k",
          messages: [
            message("m1", { role: "user", content: `my key is ${SECRET}` }),
            message("m2", {
              role: "assistant",
              content: [
                { type: "text", text: "calling" },
                { type: "tool-call", toolCallId: "c1", toolName: "bash__exec", input: { command: big } },
              ],
            }),
            message("m3", {
              role: "tool",
              content: [
                {
                  type: "tool-result",
                  toolCallId: "c1",
                  toolName: "bash__exec",
                  output: { type: "json", value: { status: "ok", output: `${SECRET} ${big}` } },
                },
              ],
            }),
          ],
        },
      ],
    });
    const [user, assistant, tool] = record.threads[0]?.messages ?? [];
    expect(user?.data.content).toBe("my key is [redacted]");
    const parts = assistant?.data.content as Array<Record<string, any>>;
    expect(parts[0]).toEqual({ type: "text", text: "calling" });
    expect(parts[1]?.input).toMatchObject({ truncated: true });
    expect(JSON.stringify(parts[1]?.input).length).toBeLessThan(MAX_DATA_FIELD_BYTES + 200);
    const result = (tool!.data.content as Array<Record<string, any>>)[0];
    expect(result?.output.type).toBe("json");
    expect(result?.output.value).toMatchObject({ truncated: true });
    expect(JSON.stringify(record)).not.toContain(SECRET);
  });

  it("keeps the first messages and events, and says how many there were", () => {
    const messages = Array.from({ length: MAX_CASE_MESSAGES + 5 }, (_, n) =>
      message(`m${n}`, { role: "user", content: `${n}` }),
    );
    const events = Array.from({ length: MAX_CASE_EVENTS + 2 }, () => ({ type: "turn.started" }) as RuntimeEvent);
    const record = caseRecord({ secrets: [], events, threads: [{ agent: "a", instanceKey: "k", messages }] });
    expect(record.threads[0]?.messages).toHaveLength(MAX_CASE_MESSAGES);
    expect(record.threads[0]?.messages[0]?.id).toBe("m0");
    expect(record.threads[0]?.totalMessages).toBe(MAX_CASE_MESSAGES + 5);
    expect(record.events).toHaveLength(MAX_CASE_EVENTS);
    expect(record.totalEvents).toBe(MAX_CASE_EVENTS + 2);
  });
});
