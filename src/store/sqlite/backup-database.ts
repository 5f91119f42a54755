/**
 * A consistent copy of a state database, taken while goondan runs: SQLite's `VACUUM INTO` reads one snapshot of the
 * database (the write-ahead log included) through its own connection, so it never blocks the orchestrator and never
 * copies a half-written transaction. The copy is a plain database file (no -wal or -shm beside it), ready to be put
 * back as `<state root>/goondan.db` with goondan stopped.
 */
import { existsSync } from "node:fs";
import { UsageError } from "../../shared/errors.ts";
import { openDatabase } from "./open-database.ts";

export function backupDatabase(options: { file: string; to: string }): { bytes: number } {
  if (existsSync(options.to))
    throw new UsageError("E_BACKUP_TARGET_EXISTS", `${options.to} exists already; a backup never overwrites a file`, {
      suggestion: "name a new file, or move the old backup aside",
    });
  const db = openDatabase(options.file, { existing: true });
  try {
    db.query("VACUUM INTO ?").run(options.to);
    return { bytes: Bun.file(options.to).size };
  } finally {
    db.close();
  }
}
