/**
 * The rows of an instance's commit that are neither messages nor inbox: a pending result (a reply or a tool
 * completion its model has not seen, kept in arrival order by `seq`) and an extension's state (null removes it).
 * The store calls these inside its write batch.
 */
import type { Database } from "bun:sqlite";
import { pendingResultId, type PendingResult } from "../../protocol/conversation.ts";
import type { JsonValue } from "../../shared/json.ts";
import type { InstanceRef } from "../store.ts";
import { instanceParams } from "./instance-rows.ts";

/** The highest sequence number a pending result was given (0 when none): the next one counts on from it. */
export function newestPendingSeq(db: Database): number {
  return (db.query("SELECT COALESCE(MAX(seq), 0) AS seq FROM pending_results").get() as { seq: number }).seq;
}

/** Keeps a pending result once (by its id), at `seq`. */
export function insertPendingResult(db: Database, instance: InstanceRef, result: PendingResult, seq: number): void {
  db.query(
    "INSERT OR IGNORE INTO pending_results (swarm, agent, instance_key, id, seq, result) VALUES (:swarm, :agent, :key, :id, :seq, :result)",
  ).run({ ...instanceParams(instance), id: pendingResultId(result), seq, result: JSON.stringify(result) });
}

/** Drops a pending result its model has now seen (a commit's `consumed`). */
export function deletePendingResult(db: Database, instance: InstanceRef, id: string): void {
  db.query(
    "DELETE FROM pending_results WHERE swarm = :swarm AND agent = :agent AND instance_key = :key AND id = :id",
  ).run({ ...instanceParams(instance), id });
}

export function setExtensionState(
  db: Database,
  instance: InstanceRef,
  extension: string,
  value: JsonValue | null,
): void {
  if (value === null)
    db.query(
      "DELETE FROM extension_state WHERE swarm = :swarm AND agent = :agent AND instance_key = :key AND extension = :extension",
    ).run({ ...instanceParams(instance), extension });
  else
    db.query(
      "INSERT OR REPLACE INTO extension_state (swarm, agent, instance_key, extension, value) VALUES (:swarm, :agent, :key, :extension, :value)",
    ).run({ ...instanceParams(instance), extension, value: JSON.stringify(value) });
}
