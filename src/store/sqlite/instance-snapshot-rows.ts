/**
 * The SQLite rows of one instance read into an InstanceSnapshot and written back from one (instance-snapshot.ts):
 * its inbox rows (event, acceptance time, crashes, outcome), the approvals its turns asked for, its messages in
 * order (and those archived out of the conversation: they are imported first, the conversation after them), its pending results in order and its extensions' state. Both run on the caller's connection, the import
 * inside the caller's transaction, under a savepoint: an import that fails leaves nothing of itself.
 */
import type { Database } from "bun:sqlite";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { ApprovalDecision, ApprovalRequest } from "../../protocol/approval.ts";
import type { Message, PendingResult } from "../../protocol/conversation.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import { SystemError } from "../../shared/errors.ts";
import type { InstanceSnapshot } from "../instance-snapshot.ts";
import type { InstanceRef } from "../store.ts";
import { INSTANCE_WHERE, instanceParams, readInstanceState, touchInstance } from "./instance-rows.ts";

type InboxRow = {
  event: string;
  accepted_at: number;
  crashes: number;
  last_crash: string | null;
  outcome: string | null;
  answered_at: number | null;
};
type ApprovalRow = { request: string; decision: string | null; applied: number };

export function exportInstanceRows(db: Database, instance: InstanceRef): InstanceSnapshot {
  const p = instanceParams(instance);
  const inbox = (
    db
      .query(
        `SELECT event, accepted_at, crashes, last_crash, outcome, answered_at FROM inbox WHERE ${INSTANCE_WHERE} ORDER BY seq`,
      )
      .all(p) as InboxRow[]
  ).map((row) => ({
    event: JSON.parse(row.event) as AgentEvent,
    acceptedAt: row.accepted_at,
    crashes: row.crashes,
    ...(row.last_crash === null ? {} : { lastCrash: row.last_crash }),
    ...(row.outcome === null ? {} : { outcome: JSON.parse(row.outcome) as TurnOutcome }),
    ...(row.answered_at === null ? {} : { answeredAt: row.answered_at }),
  }));
  const approvals = (
    db
      .query(
        "SELECT request, decision, applied FROM approvals WHERE swarm = :swarm AND json_extract(request, '$.agent') = :agent AND json_extract(request, '$.instanceKey') = :key ORDER BY requested_at, id",
      )
      .all(p) as ApprovalRow[]
  ).map((row) => ({
    request: JSON.parse(row.request) as ApprovalRequest,
    ...(row.decision === null ? {} : { decision: JSON.parse(row.decision) as ApprovalDecision }),
    applied: row.applied === 1,
  }));
  const archived = (
    db.query(`SELECT message FROM archived_messages WHERE ${INSTANCE_WHERE} ORDER BY seq`).all(p) as {
      message: string;
    }[]
  ).map((row) => JSON.parse(row.message) as Message);
  return {
    version: 1,
    inbox,
    approvals,
    ...readInstanceState(db, instance),
    ...(archived.length === 0 ? {} : { archived }),
  };
}

/**
 * Replaces the instance's conversation, pending results and extension state with the snapshot's, and sets its
 * inbox rows and approvals to the snapshot's (an event or approval it holds and the snapshot does not is left as
 * it is). `pendingId` names a pending result as the store does and `nextPendingSeq` hands out the store's order.
 */
export function importInstanceRows(
  db: Database,
  instance: InstanceRef,
  snapshot: InstanceSnapshot,
  pending: { id: (result: PendingResult) => string; nextSeq: () => number },
): void {
  if (snapshot?.version !== 1)
    throw new SystemError(
      "E_STORE_SNAPSHOT_INVALID",
      `${instance.agent}/${instance.instanceKey}: expected an instance snapshot of version 1, got ${JSON.stringify(snapshot?.version)}`,
    );
  db.exec("SAVEPOINT import_instance");
  try {
    writeRows(db, instance, snapshot, pending);
    db.exec("RELEASE import_instance");
  } catch (error) {
    db.exec("ROLLBACK TO import_instance");
    db.exec("RELEASE import_instance");
    throw error;
  }
}

function writeRows(
  db: Database,
  instance: InstanceRef,
  snapshot: InstanceSnapshot,
  pending: { id: (result: PendingResult) => string; nextSeq: () => number },
): void {
  const p = instanceParams(instance);
  for (const table of ["messages", "archived_messages", "pending_results", "extension_state"])
    db.query(`DELETE FROM ${table} WHERE ${INSTANCE_WHERE}`).run(p);
  const inbox = db.query(
    `INSERT INTO inbox (swarm, event_id, agent, instance_key, event, accepted_at, crashes, last_crash, outcome, answered_at) VALUES (:swarm, :id, :agent, :key, :event, :at, :crashes, :crash, :outcome, :answered)
     ON CONFLICT (swarm, event_id) DO UPDATE SET crashes = excluded.crashes, last_crash = excluded.last_crash, outcome = excluded.outcome, answered_at = excluded.answered_at`,
  );
  for (const entry of snapshot.inbox) {
    inbox.run({
      ...p,
      id: entry.event.id,
      event: JSON.stringify(entry.event),
      at: entry.acceptedAt,
      crashes: entry.crashes,
      crash: entry.lastCrash ?? null,
      outcome: entry.outcome === undefined ? null : JSON.stringify(entry.outcome),
      answered: entry.answeredAt ?? null,
    });
  }
  const approval = db.query(
    "INSERT OR REPLACE INTO approvals (swarm, id, event_id, request, requested_at, decision, applied) VALUES (:swarm, :id, :event, :request, :at, :decision, :applied)",
  );
  for (const entry of snapshot.approvals) {
    approval.run({
      swarm: instance.swarm,
      id: entry.request.id,
      event: entry.request.eventId,
      request: JSON.stringify(entry.request),
      at: entry.request.requestedAt,
      decision: entry.decision === undefined ? null : JSON.stringify(entry.decision),
      applied: entry.applied ? 1 : 0,
    });
  }
  const archived = snapshot.archived ?? [];
  const archive = db.query(
    "INSERT INTO archived_messages (swarm, agent, instance_key, seq, id, message) VALUES (:swarm, :agent, :key, :seq, :id, :message)",
  );
  archived.forEach((entry, index) =>
    archive.run({ ...p, seq: index + 1, id: entry.id, message: JSON.stringify(entry) }),
  );
  const message = db.query(
    "INSERT INTO messages (swarm, agent, instance_key, seq, id, message) VALUES (:swarm, :agent, :key, :seq, :id, :message)",
  );
  snapshot.messages.forEach((entry, index) =>
    message.run({ ...p, seq: archived.length + index + 1, id: entry.id, message: JSON.stringify(entry) }),
  );
  const result = db.query(
    "INSERT OR IGNORE INTO pending_results (swarm, agent, instance_key, id, seq, result) VALUES (:swarm, :agent, :key, :id, :seq, :result)",
  );
  for (const entry of snapshot.pendingResults)
    result.run({ ...p, id: pending.id(entry), seq: pending.nextSeq(), result: JSON.stringify(entry) });
  const extension = db.query(
    "INSERT INTO extension_state (swarm, agent, instance_key, extension, value) VALUES (:swarm, :agent, :key, :extension, :value)",
  );
  for (const [name, value] of Object.entries(snapshot.extensionState))
    extension.run({ ...p, extension: name, value: JSON.stringify(value) });
  touchInstance(db, instance);
}
