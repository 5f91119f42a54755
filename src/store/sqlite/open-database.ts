/**
 * Opens the SQLite database of a state root: WAL (readers in other processes, such as `goondan logs`, never block
 * the orchestrator), `synchronous=NORMAL` with the log synced by write-batch.ts off the event loop before anyone is
 * told a write happened (the schema itself is set up synced), the schema created
 * or checked. A file that is not a goondan database, is damaged, or comes from a newer goondan is a clear
 * SystemError naming the file and what to do, never a stack trace and never a silently emptied state.
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { describe, SystemError } from "../../shared/errors.ts";
import { SCHEMA_VERSION } from "./schema.ts";
import { migrateSchema } from "./schema-migration.ts";

export const STATE_DATABASE_FILE = "goondan.db";

function damaged(file: string, detail: string): SystemError {
  return new SystemError("E_STORE_UNREADABLE", `the state database ${file} cannot be used: ${detail}`, {
    suggestion: `stop goondan, move ${file} (and its -wal and -shm files) aside, and restore it from a backup or start with an empty state root (docs/concepts.md, "The state database")`,
  });
}

/** `existing`: open only a database that is there (operator commands reading a state root), creating nothing. */
export function openDatabase(file: string, options: { existing?: boolean } = {}): Database {
  let db: Database;
  try {
    if (!options.existing) mkdirSync(dirname(file), { recursive: true });
    db = new Database(
      file,
      options.existing ? { readwrite: true, create: false, strict: true } : { create: true, strict: true },
    );
  } catch (error) {
    throw damaged(file, describe(error).message);
  }
  try {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA synchronous = FULL");
    const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
    if (version > SCHEMA_VERSION)
      throw new Error(
        `it was written by a newer goondan (schema version ${version}, this one knows ${SCHEMA_VERSION})`,
      );
    if (version < SCHEMA_VERSION) migrateSchema(db);
    // Touch every table once: a damaged page or a foreign file fails here, not in the middle of a turn.
    for (const table of ["inbox", "messages", "pending_results", "extension_state", "instances", "runtime_events"])
      db.query(`SELECT 1 FROM ${table} LIMIT 1`).get();
    db.exec("PRAGMA synchronous = NORMAL");
  } catch (error) {
    db.close();
    throw damaged(file, describe(error).message);
  }
  return db;
}
