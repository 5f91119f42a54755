/**
 * Built-in `timer`: durable waits that suspend the turn instead of holding a process (`wait` stays for short
 * pauses). `sleep` suspends until a time (`until`, ISO) or for `delaySeconds`; `waitForSignal` until the named
 * signal arrives (`POST /v1/signals/:name`), whose payload is the result, or until `timeoutSeconds` pass. Both are
 * kept in the store like approvals of tool calls (../../protocol/suspension.ts): they survive a crash of the agent's
 * process and a restart of goondan, and one that came due while goondan was down wakes once when it starts. While
 * suspended, the instance takes no other event (as while a call waits for approval).
 */
import { ToolFault } from "../../tools/tool-errors.ts";
import type { ToolContext, ToolHandler } from "../../tools/types.ts";

/** Longer than a year is a mistake, not a plan. */
export const MAX_SUSPEND_SECONDS = 366 * 86_400;

function suspend(ctx: ToolContext, request: { until: number; signal?: string }): unknown {
  if (ctx.suspend === undefined)
    throw new ToolFault("E_TIMER_UNAVAILABLE", "this turn cannot be suspended here", {
      suggestion: "use wait__seconds for a short pause",
    });
  return ctx.suspend(request);
}

function seconds(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_SUSPEND_SECONDS)
    throw new ToolFault(
      "E_TIMER_INVALID",
      `expected ${field} from 0 to ${MAX_SUSPEND_SECONDS}, got ${JSON.stringify(value)}`,
    );
  return value;
}

export const handlers: Record<string, ToolHandler> = {
  sleep: (ctx, input) => {
    if (ctx.wakeUp !== undefined) return { wokeAt: new Date(ctx.wakeUp.at).toISOString() };
    const now = Date.now();
    let until: number;
    if (typeof input.until === "string") {
      until = Date.parse(input.until);
      if (!Number.isFinite(until))
        throw new ToolFault("E_TIMER_INVALID", `expected until as an ISO time, got ${JSON.stringify(input.until)}`, {
          suggestion: 'e.g. "2027-01-04T09:00:00Z"',
        });
      seconds(Math.max(0, until - now) / 1000, "until - now in seconds");
    } else if (input.delaySeconds !== undefined) until = now + seconds(input.delaySeconds, "delaySeconds") * 1000;
    else throw new ToolFault("E_TIMER_INVALID", "expected until or delaySeconds, got neither");
    return suspend(ctx, { until });
  },
  waitForSignal: (ctx, input) => {
    const wakeUp = ctx.wakeUp;
    if (wakeUp?.reason === "signal") return { signal: wakeUp.signal, payload: wakeUp.payload };
    if (wakeUp !== undefined)
      throw new ToolFault("E_SIGNAL_TIMEOUT", `no signal ${JSON.stringify(input.name)} arrived in time`);
    const name = typeof input.name === "string" ? input.name : "";
    const timeout = seconds(input.timeoutSeconds ?? 3600, "timeoutSeconds");
    return suspend(ctx, { until: Date.now() + timeout * 1000, signal: name });
  },
};
