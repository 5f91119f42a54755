/**
 * spanOfRuntimeEvent: only events that end a unit of work become spans; the span keeps the event's ids, starts
 * durationMs before the event's time, is an error with `error.type` when the work failed, and a turn's parent (the
 * request from another process) is marked remote.
 */
import { describe, expect, it } from "bun:test";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import { spanOfRuntimeEvent } from "../../src/observability/runtime-event-spans.ts";

const resource = resourceFromAttributes({ "service.name": "goondan" });
const base = {
  at: "2026-11-23T10:00:01.500Z",
  agent: "worker",
  instanceKey: "k",
  traceId: "a".repeat(32),
  spanId: "b".repeat(16),
  parentSpanId: "c".repeat(16),
  turnId: "turn_1",
};

describe("spanOfRuntimeEvent", () => {
  it("makes no span of events that start or mark work", () => {
    for (const type of [
      "turn.started",
      "step.started",
      "tool.called",
      "model.retried",
      "extension.failed",
      "conversation.recovered",
    ] as const) {
      expect(spanOfRuntimeEvent({ ...base, type } as RuntimeEvent, resource)).toBeUndefined();
    }
  });

  it("keeps the ids, places the span by its duration, and marks a turn's parent remote", () => {
    const span = spanOfRuntimeEvent(
      { ...base, type: "turn.completed", durationMs: 1500, usage: { inputTokens: 4, outputTokens: 2 } },
      resource,
    );
    expect(span?.spanContext()).toMatchObject({ traceId: base.traceId, spanId: base.spanId });
    expect(span?.parentSpanContext).toMatchObject({ spanId: base.parentSpanId, isRemote: true });
    expect(span?.startTime).toEqual([Date.parse("2026-11-23T10:00:00.000Z") / 1000, 0]);
    expect(span?.endTime).toEqual([Date.parse("2026-11-23T10:00:01.000Z") / 1000, 500_000_000]);
    expect(span?.status.code).toBe(1);
    expect(span?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.usage.input_tokens": 4,
      "goondan.turn_id": "turn_1",
    });
    const step = spanOfRuntimeEvent({ ...base, type: "step.completed", durationMs: 10, stepIndex: 0 }, resource);
    expect(step?.parentSpanContext?.isRemote).toBeUndefined();
  });

  it("marks failed work as an error with its code", () => {
    const span = spanOfRuntimeEvent(
      {
        ...base,
        type: "model.failed",
        durationMs: 20,
        error: { code: "E_MODEL_TIMEOUT", message: "no answer" },
        data: { provider: "openai", model: "gpt" },
      },
      resource,
    );
    expect(span?.name).toBe("chat gpt");
    expect(span?.status).toEqual({ code: 2, message: "E_MODEL_TIMEOUT: no answer" });
    expect(span?.attributes).toMatchObject({
      "error.type": "E_MODEL_TIMEOUT",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt",
    });
    expect(span?.kind).toBe(2);
  });
});
