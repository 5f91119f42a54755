/**
 * Reading the `runtime_events` table: the events after a cursor, narrowed by swarm, agent, instance, turn or trace,
 * the newest `limit` of them returned oldest first; and deleting the oldest, a bounded batch at a time (retention).
 * The writer (runtime-event-writer.ts) fills the table.
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

/**
 * Deletes the swarm's oldest runtime events, at most `limit` of them: those stamped before `before` (an ISO time;
 * events are appended in time order, so the oldest rows are read until the first newer one) and those past the
 * newest `keepRows` (`count`: the swarm's rows now). Rows are found in cursor order (`+swarm` keeps SQLite on the
 * rowid rather than a swarm index, which would read every row of the swarm), so a batch costs about its own rows.
 * Returns how many went.
 */
export function deleteOldRuntimeEvents(
  db: Database,
  swarm: string,
  options: { before?: string; keepRows?: number; limit: number; count: () => number },
): number {
  const limit = Math.max(1, Math.floor(options.limit));
  let upTo = 0;
  if (options.before !== undefined) {
    const oldest = db
      .query(
        "SELECT cursor, json_extract(event, '$.at') AS at FROM runtime_events WHERE +swarm = :swarm ORDER BY cursor LIMIT :limit",
      )
      .all({ swarm, limit }) as { cursor: number; at: string | null }[];
    for (const row of oldest) {
      if (row.at !== null && row.at >= options.before) break;
      upTo = row.cursor;
    }
  }
  if (options.keepRows !== undefined) {
    const excess = Math.min(limit, options.count() - Math.max(0, Math.floor(options.keepRows)));
    if (excess > 0) {
      const row = db
        .query("SELECT cursor FROM runtime_events WHERE +swarm = :swarm ORDER BY cursor LIMIT 1 OFFSET :offset")
        .get({ swarm, offset: excess - 1 }) as { cursor: number } | null;
      if (row !== null) upTo = Math.max(upTo, row.cursor);
    }
  }
  if (upTo === 0) return 0;
  return db.query("DELETE FROM runtime_events WHERE +swarm = :swarm AND cursor <= :upTo").run({ swarm, upTo }).changes;
}
