/**
 * The `messages` and `archived_messages` tables: one instance's conversation as rows in order, changed by the message
 * events of a turn (append, replace, remove, truncate). A remove or truncate with `archive: true` moves the rows to
 * `archived_messages` (out of the conversation the model sees, still in the history `older` pages through); without
 * it they are deleted. Both tables share one per-instance seq, so the history reads back in the order it was written.
 * It remembers the next seq of every instance it has touched, so an append costs one insert, never a scan; forget an
 * instance whose rows were replaced or deleted.
 */
import type { Database } from "bun:sqlite";
import {
  olderMessagesLimit,
  type Message,
  type MessageEvent,
  type OlderMessagesQuery,
} from "../../protocol/conversation.ts";
import type { InstanceRef } from "../store.ts";
import { INSTANCE_WHERE, instanceMapKey, instanceParams } from "./instance-rows.ts";

export class MessageRows {
  /** The next message seq of each instance touched so far. */
  private readonly nextSeq = new Map<string, number>();

  constructor(private readonly db: Database) {}

  apply(instance: InstanceRef, change: MessageEvent): void {
    const p = instanceParams(instance);
    switch (change.type) {
      case "append": {
        const seq = this.takeSeq(instance);
        this.db
          .query(
            "INSERT OR IGNORE INTO messages (swarm, agent, instance_key, seq, id, message) VALUES (:swarm, :agent, :key, :seq, :id, :message)",
          )
          .run({ ...p, seq, id: change.message.id, message: JSON.stringify(change.message) });
        return;
      }
      case "replace":
        this.db
          .query(`UPDATE messages SET id = :id, message = :message WHERE ${INSTANCE_WHERE} AND id = :target`)
          .run({ ...p, id: change.message.id, message: JSON.stringify(change.message), target: change.targetId });
        return;
      case "remove":
        if (change.archive === true)
          this.db
            .query(
              `INSERT OR IGNORE INTO archived_messages SELECT swarm, agent, instance_key, seq, id, message FROM messages WHERE ${INSTANCE_WHERE} AND id = :target`,
            )
            .run({ ...p, target: change.targetId });
        this.db
          .query(`DELETE FROM messages WHERE ${INSTANCE_WHERE} AND id = :target`)
          .run({ ...p, target: change.targetId });
        return;
      case "truncate":
        if (change.archive === true)
          this.db
            .query(
              `INSERT OR IGNORE INTO archived_messages SELECT swarm, agent, instance_key, seq, id, message FROM messages WHERE ${INSTANCE_WHERE}`,
            )
            .run(p);
        this.db.query(`DELETE FROM messages WHERE ${INSTANCE_WHERE}`).run(p);
        return;
    }
  }

  /** The messages of the conversation (not those archived). */
  count(instance: InstanceRef): number {
    return (
      this.db.query(`SELECT COUNT(*) AS n FROM messages WHERE ${INSTANCE_WHERE}`).get(instanceParams(instance)) as {
        n: number;
      }
    ).n;
  }

  /**
   * A page of the history (archived and current rows in seq order): the `limit` rows just before message `before`
   * (default: after the newest), oldest first. A `before` the instance never had answers an empty page.
   */
  older(instance: InstanceRef, query: OlderMessagesQuery): Message[] {
    const p = instanceParams(instance);
    let below = Number.MAX_SAFE_INTEGER;
    if (query.before !== undefined) {
      const found = this.db
        .query(
          `SELECT seq FROM messages WHERE ${INSTANCE_WHERE} AND id = :id UNION ALL SELECT seq FROM archived_messages WHERE ${INSTANCE_WHERE} AND id = :id ORDER BY seq DESC LIMIT 1`,
        )
        .get({ ...p, id: query.before }) as { seq: number } | null;
      if (found === null) return [];
      below = found.seq;
    }
    const rows = this.db
      .query(
        `SELECT seq, message FROM (
           SELECT seq, message FROM messages WHERE ${INSTANCE_WHERE} AND seq < :below
           UNION ALL SELECT seq, message FROM archived_messages WHERE ${INSTANCE_WHERE} AND seq < :below
         ) ORDER BY seq DESC LIMIT :limit`,
      )
      .all({ ...p, below, limit: olderMessagesLimit(query) }) as { message: string }[];
    return rows.reverse().map((row) => JSON.parse(row.message) as Message);
  }

  /** Deletes the instance's history as well as its conversation (a `--fresh` restart, a deleted instance). */
  deleteAll(instance: InstanceRef): void {
    for (const table of ["messages", "archived_messages"])
      this.db.query(`DELETE FROM ${table} WHERE ${INSTANCE_WHERE}`).run(instanceParams(instance));
    this.forget(instance);
  }

  /** Drops the remembered seq of an instance whose rows were replaced or deleted. */
  forget(instance: InstanceRef): void {
    this.nextSeq.delete(instanceMapKey(instance));
  }

  /** The instance has no rows (the store never held it): its first append takes seq 1 without a query. */
  startEmpty(instance: InstanceRef): void {
    this.nextSeq.set(instanceMapKey(instance), 1);
  }

  /** Drops every remembered seq (a batch was rolled back: what it appended is gone). */
  forgetAll(): void {
    this.nextSeq.clear();
  }

  private takeSeq(instance: InstanceRef): number {
    const key = instanceMapKey(instance);
    let next = this.nextSeq.get(key);
    if (next === undefined)
      next = (
        this.db
          .query(
            `SELECT MAX(COALESCE((SELECT MAX(seq) FROM messages WHERE ${INSTANCE_WHERE}), 0), COALESCE((SELECT MAX(seq) FROM archived_messages WHERE ${INSTANCE_WHERE}), 0)) + 1 AS next`,
          )
          .get(instanceParams(instance)) as { next: number }
      ).next;
    this.nextSeq.set(key, next + 1);
    return next;
  }
}
