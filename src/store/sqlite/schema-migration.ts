/**
 * Brings a database written by an older goondan up to this one's schema (schema.ts), in one transaction at open:
 * every table and index it lacks is made, and then, from version 2, `messages` is moved into a rowid table.
 *
 * Why version 3: `messages` was a table keyed by (swarm, agent, instance key, seq). A new conversation's rows went
 * into the middle of it, so nearly every commit of a turn split a full page of it and wrote three or four pages of it
 * to the log: with its id index, two fifths of all the log a request wrote (bench/request-syncs.ts). In a rowid
 * table, rows are appended at its end; the id index (a message is kept once) also finds a conversation's rows, which
 * are read in seq order by sorting them: a conversation is read whole only when an instance starts, and a second index
 * by seq cost as many pages of log per commit as the id index does. Rows are copied in conversation order, so each
 * conversation's old rows stay together.
 */
import type { Database } from "bun:sqlite";
import { SCHEMA, SCHEMA_VERSION } from "./schema.ts";

export function migrateSchema(db: Database): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    const keyed = keyedMessages(db);
    if (keyed) {
      db.exec("ALTER TABLE messages RENAME TO messages_keyed");
      db.exec("DROP INDEX IF EXISTS messages_id");
    }
    db.exec(SCHEMA);
    if (keyed) {
      db.exec(
        `INSERT INTO messages (swarm, agent, instance_key, seq, id, message)
         SELECT swarm, agent, instance_key, seq, id, message FROM messages_keyed ORDER BY swarm, agent, instance_key, seq`,
      );
      db.exec("DROP TABLE messages_keyed");
    }
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec("COMMIT");
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/** Whether `messages` is the keyed table of versions 1 and 2 (`WITHOUT ROWID`). */
function keyedMessages(db: Database): boolean {
  const table = db.query("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'messages'").get() as {
    sql: string;
  } | null;
  return table !== null && /WITHOUT\s+ROWID/i.test(table.sql);
}
