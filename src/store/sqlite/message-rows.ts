/**
 * The `messages` table: one instance's conversation as rows in order, changed by the message events of a turn
 * (append, replace, remove, truncate). It remembers the next seq of every instance it has touched, so an append costs
 * one insert, never a scan; forget an instance whose rows were replaced or deleted.
 */
import type { Database } from "bun:sqlite";
import type { MessageEvent } from "../../protocol/conversation.ts";
import type { InstanceRef } from "../store.ts";
import { instanceParams } from "./instance-rows.ts";

const keyOf = (instance: InstanceRef): string => `${instance.swarm}\n${instance.agent}\n${instance.instanceKey}`;

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
          .query(
            "UPDATE messages SET id = :id, message = :message WHERE swarm = :swarm AND agent = :agent AND instance_key = :key AND id = :target",
          )
          .run({ ...p, id: change.message.id, message: JSON.stringify(change.message), target: change.targetId });
        return;
      case "remove":
        this.db
          .query(
            "DELETE FROM messages WHERE swarm = :swarm AND agent = :agent AND instance_key = :key AND id = :target",
          )
          .run({ ...p, target: change.targetId });
        return;
      case "truncate":
        this.db.query("DELETE FROM messages WHERE swarm = :swarm AND agent = :agent AND instance_key = :key").run(p);
        return;
    }
  }

  count(instance: InstanceRef): number {
    return (
      this.db
        .query("SELECT COUNT(*) AS n FROM messages WHERE swarm = :swarm AND agent = :agent AND instance_key = :key")
        .get(instanceParams(instance)) as { n: number }
    ).n;
  }

  /** Drops the remembered seq of an instance whose rows were replaced or deleted. */
  forget(instance: InstanceRef): void {
    this.nextSeq.delete(keyOf(instance));
  }

  /** Drops every remembered seq (a batch was rolled back: what it appended is gone). */
  forgetAll(): void {
    this.nextSeq.clear();
  }

  private takeSeq(instance: InstanceRef): number {
    const key = keyOf(instance);
    let next = this.nextSeq.get(key);
    if (next === undefined)
      next = (
        this.db
          .query(
            "SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages WHERE swarm = :swarm AND agent = :agent AND instance_key = :key",
          )
          .get(instanceParams(instance)) as { next: number }
      ).next;
    this.nextSeq.set(key, next + 1);
    return next;
  }
}
