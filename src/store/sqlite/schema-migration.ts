/**
 * Brings a database written by an older goondan up to this one's schema (schema.ts), in one transaction at open:
 * every table and index it lacks is made, and then, from version 2, `messages` is moved into a rowid table and
 * `inbox` into one without AUTOINCREMENT (which rewrote `sqlite_sequence`, a page of log, at every accept; the
 * inbox never deletes a row, so its rowid is never given twice without it). Rows keep their values, seq included.
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

const INBOX_COLUMNS =
  "seq, swarm, event_id, agent, instance_key, event, accepted_at, crashes, last_crash, outcome, answered_at";

export function migrateSchema(db: Database): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    const keyed = /WITHOUT\s+ROWID/i.test(tableSql(db, "messages") ?? "");
    const counted = /AUTOINCREMENT/i.test(tableSql(db, "inbox") ?? "");
    if (keyed) {
      db.exec("ALTER TABLE messages RENAME TO messages_keyed");
      db.exec("DROP INDEX IF EXISTS messages_id");
    }
    if (counted) {
      db.exec("ALTER TABLE inbox RENAME TO inbox_counted");
      db.exec("DROP INDEX IF EXISTS inbox_unanswered");
    }
    db.exec(SCHEMA);
    if (keyed) {
      db.exec(
        `INSERT INTO messages (swarm, agent, instance_key, seq, id, message)
         SELECT swarm, agent, instance_key, seq, id, message FROM messages_keyed
         ORDER BY swarm, agent, instance_key, seq`,
      );
      db.exec("DROP TABLE messages_keyed");
    }
    if (counted) {
      db.exec(`INSERT INTO inbox (${INBOX_COLUMNS}) SELECT ${INBOX_COLUMNS} FROM inbox_counted ORDER BY seq`);
      db.exec("DROP TABLE inbox_counted");
      db.exec("DELETE FROM sqlite_sequence WHERE name IN ('inbox', 'inbox_counted')");
    }
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec("COMMIT");
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/** The statement that made a table, when there is one. */
function tableSql(db: Database, name: string): string | undefined {
  const table = db.query("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) as {
    sql: string;
  } | null;
  return table?.sql;
}
