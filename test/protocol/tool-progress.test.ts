/** toolProgressOf: the tool.* runtime events become progress records; every other event stays in the store only. */
import { describe, expect, it } from "bun:test";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import { toolProgressOf } from "../../src/protocol/turn-progress.ts";

const base = { traceId: "t", spanId: "s", turnId: "turn", toolName: "bash__exec", toolCallId: "call" };
const who = { agent: "worker", instanceKey: "k", at: "2026-01-01T00:00:00.000Z" };
const toolProgress = (options: {
  event: Omit<RuntimeEvent, "at" | "agent" | "instanceKey">;
  agent: string;
  instanceKey: string;
  at: string;
}) =>
  toolProgressOf({
    ...options.event,
    agent: options.agent,
    instanceKey: options.instanceKey,
    at: options.at,
  } as RuntimeEvent);

describe("toolProgressOf", () => {
  it("maps a called tool to started, a completed one to ended ok and a failed one to ended error with its code", () => {
    expect(toolProgress({ event: { type: "tool.called", ...base }, ...who })).toEqual({
      kind: "tool",
      phase: "started",
      agent: "worker",
      instanceKey: "k",
      traceId: "t",
      turnId: "turn",
      name: "bash__exec",
      toolCallId: "call",
    });
    expect(toolProgress({ event: { type: "tool.completed", ...base, durationMs: 4 }, ...who })).toMatchObject({
      phase: "ended",
      status: "ok",
      durationMs: 4,
    });
    expect(
      toolProgress({
        event: { type: "tool.failed", ...base, durationMs: 9, error: { code: "E_TOOL_TIMEOUT", message: "slow" } },
        ...who,
      }),
    ).toMatchObject({ phase: "ended", status: "error", code: "E_TOOL_TIMEOUT" });
  });

  it("ignores turn and step events", () => {
    expect(
      toolProgress({ event: { type: "turn.started", traceId: "t", spanId: "s", turnId: "turn" }, ...who }),
    ).toBeUndefined();
    expect(
      toolProgress({
        event: { type: "step.completed", traceId: "t", spanId: "s", turnId: "turn", stepIndex: 0 },
        ...who,
      }),
    ).toBeUndefined();
  });
});
