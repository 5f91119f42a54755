/**
 * The rows of one instance, as every part of the SQLite store addresses them: its key as query parameters, the state
 * a turn starts from (conversation in order, results waiting in order, extensions' state) read in one go, and the
 * mark of its last change in the `instances` table, listed with its row counts. The store itself and the snapshot export/import share these.
 */
import type { Database } from "bun:sqlite";
import type { Message, PendingResult } from "../../protocol/conversation.ts";
import type { InstanceState } from "../../protocol/instance-state.ts";
import type { JsonValue } from "../../shared/json.ts";
import type { InstanceRef, StoredInstance } from "../store.ts";

/** Every table holding rows of an instance (what deleting it removes). */
export const INSTANCE_TABLES = [
  "messages",
  "archived_messages",
  "pending_results",
  "extension_state",
  "instances",
  "runtime_events",
] as const;

/** The condition naming one instance's rows, with `instanceParams`. */
export const INSTANCE_WHERE = "swarm = :swarm AND agent = :agent AND instance_key = :key";

/** One instance as a map key, for what the store remembers of it in memory. */
export const instanceMapKey = (instance: InstanceRef): string =>
  `${instance.swarm}\n${instance.agent}\n${instance.instanceKey}`;

export const instanceParams = (instance: InstanceRef) => ({
  swarm: instance.swarm,
  agent: instance.agent,
  key: instance.instanceKey,
});

/** The instance's conversation and pending results, oldest first, and its extensions' state by name. */
export function readInstanceState(db: Database, instance: InstanceRef): InstanceState {
  const p = instanceParams(instance);
  const messages = (
    db.query(`SELECT message FROM messages WHERE ${INSTANCE_WHERE} ORDER BY seq`).all(p) as { message: string }[]
  ).map((row) => JSON.parse(row.message) as Message);
  const pendingResults = (
    db.query(`SELECT result FROM pending_results WHERE ${INSTANCE_WHERE} ORDER BY seq`).all(p) as { result: string }[]
  ).map((row) => JSON.parse(row.result) as PendingResult);
  const extensionState: Record<string, JsonValue> = {};
  for (const row of db
    .query(`SELECT extension, value FROM extension_state WHERE ${INSTANCE_WHERE} ORDER BY extension`)
    .all(p) as { extension: string; value: string }[]) {
    extensionState[row.extension] = JSON.parse(row.value) as JsonValue;
  }
  return { messages, pendingResults, extensionState };
}

/** Marks the instance changed now (listed by `instances()`, with this time). */
export function touchInstance(db: Database, instance: InstanceRef, at = Date.now()): void {
  db.query(
    `INSERT INTO instances (swarm, agent, instance_key, updated_at) VALUES (:swarm, :agent, :key, :at) ON CONFLICT DO UPDATE SET updated_at = :at`,
  ).run({ ...instanceParams(instance), at });
}

/**
 * Marks the instance changed now, as `touchInstance`, and says whether its row was made now: an instance the store
 * did not hold. Every write of an instance's state marks it, so an instance without a row has no state rows either.
 */
export function touchNewInstance(db: Database, instance: InstanceRef, at = Date.now()): boolean {
  const params = { ...instanceParams(instance), at };
  const made = db
    .query(
      "INSERT OR IGNORE INTO instances (swarm, agent, instance_key, updated_at) VALUES (:swarm, :agent, :key, :at)",
    )
    .run(params).changes;
  if (made > 0) return true;
  db.query(`UPDATE instances SET updated_at = :at WHERE ${INSTANCE_WHERE}`).run(params);
  return false;
}

/** Every instance of the swarm (or of all swarms) with its row counts, in key order. */
export function listInstances(db: Database, swarm?: string): StoredInstance[] {
  const rows = db
    .query(
      `SELECT i.swarm, i.agent, i.instance_key, i.updated_at,
         (SELECT COUNT(*) FROM messages m WHERE m.swarm = i.swarm AND m.agent = i.agent AND m.instance_key = i.instance_key) AS messages,
         (SELECT COUNT(*) FROM pending_results p WHERE p.swarm = i.swarm AND p.agent = i.agent AND p.instance_key = i.instance_key) AS pending
       FROM instances i WHERE (:swarm IS NULL OR i.swarm = :swarm) ORDER BY i.swarm, i.agent, i.instance_key`,
    )
    .all({ swarm: swarm ?? null }) as {
    swarm: string;
    agent: string;
    instance_key: string;
    updated_at: number;
    messages: number;
    pending: number;
  }[];
  return rows.map((row) => ({
    swarm: row.swarm,
    agent: row.agent,
    instanceKey: row.instance_key,
    messages: row.messages,
    pendingResults: row.pending,
    updatedAt: row.updated_at,
  }));
}

/** Whether the store knows the instance at all. */
export function instanceKnown(db: Database, instance: InstanceRef): boolean {
  return (
    db
      .query("SELECT 1 FROM instances WHERE swarm = :swarm AND agent = :agent AND instance_key = :key")
      .get(instanceParams(instance)) !== null
  );
}

/** Deletes every row the instance has, in every table that keeps one. */
export function deleteInstanceRows(db: Database, instance: InstanceRef): void {
  for (const table of INSTANCE_TABLES)
    db.query(`DELETE FROM ${table} WHERE ${INSTANCE_WHERE}`).run(instanceParams(instance));
}
