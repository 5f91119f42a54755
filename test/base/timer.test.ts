/**
 * The built-in `timer` tool alone, with a fake `ctx.suspend`: what it asks to be suspended for, what it answers when
 * woken by its time, its signal or its timeout, and its refusals; and how a decided suspension tells its call how
 * it was woken (protocol/suspension.ts).
 */
import { describe, expect, it } from "bun:test";
import { handlers } from "../../src/base/tools/timer.ts";
import type { Approval } from "../../src/protocol/approval.ts";
import {
  isSuspension,
  signalApprover,
  TIMER_APPROVER,
  wakeUpOf,
  type SuspendRequest,
  type WakeUp,
} from "../../src/protocol/suspension.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import type { JsonObject } from "../../src/shared/json.ts";
import { invocationContext } from "../tools/helpers.ts";

function context(options: { wakeUp?: WakeUp; suspend?: boolean } = {}) {
  const asked: SuspendRequest[] = [];
  const ctx: ToolContext = {
    ...invocationContext(),
    toolCallId: "c1",
    signal: new AbortController().signal,
    config: {},
    ...(options.suspend === false ? {} : { suspend: (request: SuspendRequest) => (asked.push(request), "held") }),
    ...(options.wakeUp ? { wakeUp: options.wakeUp } : {}),
  };
  return { ctx, asked };
}

const approval = (fields: Partial<Approval>): Approval => ({
  id: "appr_1",
  agent: "a",
  instanceKey: "k",
  eventId: "evt_1",
  turnId: "t",
  traceId: "x",
  toolCallId: "c1",
  toolName: "timer__sleep",
  arguments: {},
  requestedAt: 0,
  ...fields,
});

describe("timer__sleep", () => {
  it("suspends until the time asked, by delay or by an ISO time", async () => {
    const { ctx, asked } = context();
    const before = Date.now();
    expect(await handlers.sleep!(ctx, { delaySeconds: 90 })).toBe("held");
    expect(asked[0]?.until).toBeGreaterThanOrEqual(before + 90_000);
    await handlers.sleep!(ctx, { until: new Date(before + 86_400_000).toISOString() });
    expect(asked[1]?.until).toBe(before + 86_400_000);
    expect(asked).toHaveLength(2);
  });

  it("answers when it wakes", async () => {
    const { ctx } = context({ wakeUp: { reason: "time", at: Date.UTC(2027, 0, 1) } });
    expect(await handlers.sleep!(ctx, { delaySeconds: 1 })).toEqual({ wokeAt: "2027-01-01T00:00:00.000Z" });
  });

  it("refuses a bad time, a negative or absurd delay, and a turn that cannot suspend", async () => {
    const { ctx } = context();
    const inputs: JsonObject[] = [{ until: "tomorrow" }, { until: "2999-01-01T00:00:00Z" }, { delaySeconds: -1 }, {}];
    for (const input of inputs)
      expect(() => handlers.sleep!(ctx, input)).toThrow(expect.objectContaining({ code: "E_TIMER_INVALID" }));
    expect(() => handlers.sleep!(context({ suspend: false }).ctx, { delaySeconds: 1 })).toThrow(
      expect.objectContaining({ code: "E_TIMER_UNAVAILABLE" }),
    );
  });
});

describe("timer__waitForSignal", () => {
  it("suspends for the named signal with its timeout, and answers with the payload", async () => {
    const { ctx, asked } = context();
    await handlers.waitForSignal!(ctx, { name: "deploy", timeoutSeconds: 60 });
    expect(asked[0]).toMatchObject({ signal: "deploy" });
    const woken = context({ wakeUp: { reason: "signal", at: 1, signal: "deploy", payload: { v: 2 } } });
    expect(await handlers.waitForSignal!(woken.ctx, { name: "deploy" })).toEqual({
      signal: "deploy",
      payload: { v: 2 },
    });
  });

  it("fails with E_SIGNAL_TIMEOUT when its time ran out", () => {
    const { ctx } = context({ wakeUp: { reason: "timeout", at: 1, signal: "deploy" } });
    expect(() => handlers.waitForSignal!(ctx, { name: "deploy" })).toThrow(
      expect.objectContaining({ code: "E_SIGNAL_TIMEOUT" }),
    );
  });
});

describe("wakeUpOf", () => {
  it("tells a timer's time, a signal's payload and a signal's timeout apart, and ignores a person's approval", () => {
    const decided = (decision: "approve" | "timeout", reason?: string) => ({
      decision,
      decidedAt: 5,
      ...(reason === undefined ? {} : { reason }),
    });
    expect(wakeUpOf(approval({ approvers: [TIMER_APPROVER], decision: decided("timeout") }))).toEqual({
      reason: "time",
      at: 5,
    });
    const signal = approval({ approvers: [signalApprover("go")], decision: decided("approve", '{"a":1}') });
    expect(wakeUpOf(signal)).toEqual({ reason: "signal", at: 5, signal: "go", payload: { a: 1 } });
    expect(wakeUpOf({ ...signal, decision: decided("timeout") })).toEqual({ reason: "timeout", at: 5, signal: "go" });
    expect(wakeUpOf(approval({ approvers: ["alice"], decision: decided("approve") }))).toBeUndefined();
    expect(isSuspension(approval({}))).toBe(false);
  });
});
