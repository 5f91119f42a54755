/**
 * One decision on a held tool call, in the caller's transaction: recorded unless the approval was decided already;
 * once every approval its event's turn waits for is decided, the event is reopened for delivery (its record comes
 * back with its approvals).
 */
import type { Database } from "bun:sqlite";
import type { Approval, ApprovalDecision } from "../../protocol/approval.ts";
import type { ApprovalDecided } from "../store.ts";
import { allDecided, eventApprovals, reopenEvent, selectApprovals, setDecision } from "./approval-rows.ts";
import { selectInboxRecord } from "./inbox-rows.ts";

export function decideApprovalRows(
  db: Database,
  swarm: string,
  id: string,
  decision: ApprovalDecision,
): ApprovalDecided {
  const [found] = selectApprovals(db, { swarm, id });
  if (found === undefined) return { type: "missing" };
  if (!setDecision(db, swarm, id, decision)) return { type: "already", approval: found };
  const approval: Approval = { ...found, decision };
  if (!allDecided(db, swarm, approval.eventId)) return { type: "decided", approval };
  reopenEvent(db, swarm, approval.eventId);
  const reopened = selectInboxRecord(db, swarm, approval.eventId, { unanswered: true });
  if (reopened === undefined) return { type: "decided", approval };
  const approvals = eventApprovals(db, swarm, reopened.event.id);
  return { type: "decided", approval, reopened: approvals.length === 0 ? reopened : { ...reopened, approvals } };
}
