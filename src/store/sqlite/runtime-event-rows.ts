/**
 * Reading the `runtime_events` table: the events after a cursor, narrowed by swarm, agent, instance, turn or trace,
 * the newest `limit` of them returned oldest first. The writer (runtime-event-writer.ts) fills the table.
 */
import type { Database } from "bun:sqlite";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import type { RuntimeEventQuery, StoredRuntimeEvent } from "../store.ts";

export function selectRuntimeEvents(db: Database, query: RuntimeEventQuery): StoredRuntimeEvent[] {
  const where = ["cursor > :after"];
  const values: Record<string, string | number> = { after: query.after ?? 0 };
  if (query.swarm !== undefined) where.push("swarm = :swarm"), (values.swarm = query.swarm);
  if (query.agent !== undefined) where.push("agent = :agent"), (values.agent = query.agent);
  if (query.instanceKey !== undefined) where.push("instance_key = :key"), (values.key = query.instanceKey);
  if (query.turnId !== undefined) where.push("turn_id = :turn"), (values.turn = query.turnId);
  if (query.traceId !== undefined) where.push("trace_id = :trace"), (values.trace = query.traceId);
  const limit = query.limit === undefined ? "" : ` LIMIT ${Math.max(1, Math.floor(query.limit))}`;
  const rows = db
    .query(`SELECT cursor, event FROM runtime_events WHERE ${where.join(" AND ")} ORDER BY cursor DESC${limit}`)
    .all(values) as { cursor: number; event: string }[];
  return rows.reverse().map((row) => ({ cursor: row.cursor, event: JSON.parse(row.event) as RuntimeEvent }));
}
