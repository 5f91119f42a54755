/**
 * A person's decision on a held tool call as the ApprovalDesk takes it (`POST /v1/approvals/:id`) and what it
 * answers, with the one rule of who may decide: a decider the approval's `approvers` do not name is refused. The
 * desk applies the rule where it decides, and a cluster node (signal-routing.ts) before it keeps a decision for
 * another node, so both refuse exactly the same deciders.
 */
import type { Approval, ApprovalDecisionKind } from "../../protocol/approval.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { TurnProgress } from "../../protocol/turn-progress.ts";

export interface DecideRequest {
  id: string;
  decision: "approve" | "deny";
  reason?: string;
  /** Who decides; must be one of the approval's `approvers` when it names some. */
  approver?: string;
  /** Also answer the outcome of the turn this decision resumes (when it was the event's last undecided approval). */
  wait?: boolean;
  /** The resumed turn's progress as it runs (its text, its tool calls and those it delegates), until it ends; implies wait. */
  onProgress?: (progress: TurnProgress) => void;
}

export type DecideAnswer =
  | { type: "decided"; approval: Approval; outcome?: Promise<TurnOutcome> }
  | { type: "already"; approval: Approval }
  | { type: "missing" }
  | { type: "forbidden"; approval: Approval };

/** Whether `approver` may make `decision` on the approval (a deadline's timeout always may). */
export function mayDecide(
  approval: Pick<Approval, "approvers">,
  decision: ApprovalDecisionKind,
  approver: string | undefined,
): boolean {
  if (decision === "timeout" || approval.approvers === undefined) return true;
  return approver !== undefined && approval.approvers.includes(approver);
}
