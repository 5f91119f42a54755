/**
 * Suspensions: a tool call held for a time or for a named signal rather than for a person (the built-in `timer`
 * tool). They are approvals (approval.ts) whose `approvers` name no person: the store keeps them, the orchestrator's
 * ApprovalDesk runs their deadline and re-arms it after a restart, and the event comes back to the same turn once
 * decided. A timer is decided by its deadline (`timeout`, which for a timer means the time has come); a signal by
 * `POST /v1/signals/:name` (`approve`, the payload as the decision's reason, in JSON) or by its deadline.
 */
import type { JsonValue } from "../shared/json.ts";
import type { Approval } from "./approval.ts";

/** The approver of a timer: nobody but its deadline decides it. */
export const TIMER_APPROVER = "goondan:timer";
const SIGNAL_PREFIX = "goondan:signal:";

/** The approver of a wait for the signal `name`: only that signal (or the deadline) decides it. */
export function signalApprover(name: string): string {
  return `${SIGNAL_PREFIX}${name}`;
}

/** What a tool asks for when it suspends its turn: until a time (epoch ms), or until a signal with `until` as its timeout. */
export interface SuspendRequest {
  until: number;
  signal?: string;
}

/** How a suspended call was woken, as the call sees it when it runs again. */
export type WakeUp =
  | { reason: "time"; at: number }
  | { reason: "signal"; at: number; signal: string; payload: JsonValue }
  | { reason: "timeout"; at: number; signal: string };

/** Whether an approval is a suspension (a timer or a signal), not a person's decision. */
export function isSuspension(approval: Pick<Approval, "approvers">): boolean {
  return (approval.approvers ?? []).some((name) => name === TIMER_APPROVER || name.startsWith(SIGNAL_PREFIX));
}

/** The signal a suspension waits for, if it waits for one. */
export function awaitedSignal(approval: Pick<Approval, "approvers">): string | undefined {
  const approver = (approval.approvers ?? []).find((name) => name.startsWith(SIGNAL_PREFIX));
  return approver?.slice(SIGNAL_PREFIX.length);
}

/** How a decided suspension woke its call; undefined for a person's approval or one not decided yet. */
export function wakeUpOf(approval: Approval): WakeUp | undefined {
  const decision = approval.decision;
  if (decision === undefined || !isSuspension(approval)) return undefined;
  const signal = awaitedSignal(approval);
  if (signal === undefined) return { reason: "time", at: decision.decidedAt };
  if (decision.decision !== "approve") return { reason: "timeout", at: decision.decidedAt, signal };
  let payload: JsonValue = null;
  try {
    payload = JSON.parse(decision.reason ?? "null") as JsonValue;
  } catch {
    payload = decision.reason ?? null;
  }
  return { reason: "signal", at: decision.decidedAt, signal, payload };
}
