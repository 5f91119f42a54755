/**
 * traceSpan: one span of a trace from the runtime events that carry its id. A tool span has its args as inputs and
 * its result as outputs, its duration and status; a model span its prompt summary and answer, tokens and retries; a
 * held tool call is awaiting_approval; a span no event carries is undefined.
 */
import { describe, expect, it } from "bun:test";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import { traceSpan } from "../../src/observability/trace-span.ts";

const base = { agent: "a", instanceKey: "k", traceId: "t".repeat(32), turnId: "turn_1" };
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const events: RuntimeEvent[] = [
  {
    ...base,
    type: "tool.called",
    at: at(0),
    spanId: "s1",
    parentSpanId: "p",
    toolName: "x__y",
    toolCallId: "c1",
    data: { args: { q: 1 } },
  },
  {
    ...base,
    type: "tool.completed",
    at: at(40),
    spanId: "s1",
    parentSpanId: "p",
    toolName: "x__y",
    toolCallId: "c1",
    durationMs: 40,
    data: { result: { status: "ok", output: 2 } },
  },
  {
    ...base,
    type: "model.retried",
    at: at(50),
    spanId: "m1",
    parentSpanId: "p",
    error: { code: "E_429", message: "slow down" },
    data: { attempt: 1, delayMs: 10 },
  },
  {
    ...base,
    type: "model.completed",
    at: at(90),
    spanId: "m1",
    parentSpanId: "p",
    durationMs: 35,
    usage: { inputTokens: 5, outputTokens: 2 },
    data: { model: "mini", finishReason: "stop", input: { messages: 3 }, output: { text: "hi" } },
  },
  {
    ...base,
    type: "tool.called",
    at: at(95),
    spanId: "s2",
    parentSpanId: "p",
    toolName: "x__z",
    toolCallId: "c2",
    data: { args: {} },
  },
  {
    ...base,
    type: "approval.requested",
    at: at(96),
    spanId: "s2",
    parentSpanId: "p",
    toolName: "x__z",
    toolCallId: "c2",
    data: { approvalId: "ap" },
  },
];

describe("traceSpan", () => {
  it("serves a tool span's args and result, duration and status", () => {
    expect(traceSpan(events, "s1")).toEqual({
      traceId: base.traceId,
      spanId: "s1",
      parentSpanId: "p",
      kind: "tool",
      name: "tool x__y",
      agent: "a",
      instanceKey: "k",
      startedAt: at(0),
      endedAt: at(40),
      durationMs: 40,
      status: "ok",
      retries: [],
      inputs: { args: { q: 1 } },
      outputs: { result: { status: "ok", output: 2 } },
    });
  });

  it("serves a model span's prompt summary, answer, tokens and retries, its start from its end and duration", () => {
    const span = traceSpan(events, "m1")!;
    expect(span).toMatchObject({ kind: "model", name: "model mini", startedAt: at(55), status: "ok" });
    expect(span.usage).toEqual({ inputTokens: 5, outputTokens: 2 });
    expect(span.retries).toEqual([{ attempt: 1, delayMs: 10, error: { code: "E_429", message: "slow down" } }]);
    expect(span.inputs).toEqual({ input: { messages: 3 } });
    expect(span.outputs).toEqual({ output: { text: "hi" }, finishReason: "stop", model: "mini" });
  });

  it("says a held call awaits approval, and knows no span no event carries", () => {
    expect(traceSpan(events, "s2")!.status).toBe("awaiting_approval");
    expect(traceSpan(events, "nope")).toBeUndefined();
  });
});
