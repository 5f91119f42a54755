/**
 * The SQLite store's approvals table: an approval's request as JSON, its decision once made (only ever set once:
 * `decision IS NULL` guards the update), and `applied` once the resumed turn consumed it. Deciding the last
 * undecided approval of an event clears the event's `awaiting_approval` answer in the same transaction, so the
 * event is unanswered again and delivered (also by a restarted orchestrator).
 */
import type { Database } from "bun:sqlite";
import type { Approval, ApprovalDecision, ApprovalRequest } from "../../protocol/approval.ts";
import type { ApprovalQuery, InboxRecord } from "../store.ts";

type ApprovalRow = { request: string; decision: string | null; applied: number };

const approvalOf = (row: ApprovalRow): Approval => ({
  ...(JSON.parse(row.request) as ApprovalRequest),
  ...(row.decision === null ? {} : { decision: JSON.parse(row.decision) as ApprovalDecision }),
  ...(row.applied === 1 ? { applied: true } : {}),
});

export function insertApproval(db: Database, swarm: string, request: ApprovalRequest): void {
  db.query(
    "INSERT OR IGNORE INTO approvals (swarm, id, event_id, request, requested_at) VALUES (:swarm, :id, :event, :request, :at)",
  ).run({
    swarm,
    id: request.id,
    event: request.eventId,
    request: JSON.stringify(request),
    at: request.requestedAt,
  });
}

export function markApplied(db: Database, swarm: string, id: string): void {
  db.query("UPDATE approvals SET applied = 1 WHERE swarm = :swarm AND id = :id AND decision IS NOT NULL").run({
    swarm,
    id,
  });
}

export function selectApprovals(db: Database, query: ApprovalQuery): Approval[] {
  const where = ["1 = 1"];
  const values: Record<string, string> = {};
  if (query.swarm !== undefined) where.push("swarm = :swarm"), (values.swarm = query.swarm);
  if (query.id !== undefined) where.push("id = :id"), (values.id = query.id);
  if (query.pending === true) where.push("decision IS NULL");
  const rows = db
    .query(`SELECT request, decision, applied FROM approvals WHERE ${where.join(" AND ")} ORDER BY requested_at, id`)
    .all(values) as ApprovalRow[];
  return rows.map(approvalOf);
}

export function eventApprovals(db: Database, swarm: string, eventId: string): Approval[] {
  const rows = db
    .query(
      "SELECT request, decision, applied FROM approvals WHERE swarm = :swarm AND event_id = :event ORDER BY requested_at, id",
    )
    .all({ swarm, event: eventId }) as ApprovalRow[];
  return rows.map(approvalOf);
}

/** An inbox record with the approvals of its event, when it has any. */
export function withApprovals(db: Database, swarm: string, record: InboxRecord): InboxRecord {
  const approvals = eventApprovals(db, swarm, record.event.id);
  return approvals.length === 0 ? record : { ...record, approvals };
}

/** Sets the decision when none is set yet; true when this call set it. */
export function setDecision(db: Database, swarm: string, id: string, decision: ApprovalDecision): boolean {
  return (
    db
      .query("UPDATE approvals SET decision = :decision WHERE swarm = :swarm AND id = :id AND decision IS NULL")
      .run({ swarm, id, decision: JSON.stringify(decision) }).changes === 1
  );
}

/** True when every approval of the event has a decision. */
export function allDecided(db: Database, swarm: string, eventId: string): boolean {
  return (
    db
      .query("SELECT 1 FROM approvals WHERE swarm = :swarm AND event_id = :event AND decision IS NULL LIMIT 1")
      .get({ swarm, event: eventId }) === null
  );
}

/** Clears an event's stored `awaiting_approval` answer (only that one): it is unanswered again. */
export function reopenEvent(db: Database, swarm: string, eventId: string): void {
  db.query(
    "UPDATE inbox SET outcome = NULL, answered_at = NULL WHERE swarm = :swarm AND event_id = :id AND json_extract(outcome, '$.status') = 'awaiting_approval'",
  ).run({ swarm, id: eventId });
}
