/**
 * A full disk for a test of the SQLite store: the database may not grow past the pages it has now, so a write that
 * needs a new page fails as on a full disk (`SQLITE_FULL`, at the write or at its `COMMIT`); `free()` gives the room
 * back.
 */
import type { Database } from "bun:sqlite";
import type { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";

/** The store's own connection (private in the store). */
export const dbOf = (store: SqliteStore): Database => (store as unknown as { db: Database }).db;

export function fillDisk(store: SqliteStore): { free(): void } {
  const db = dbOf(store);
  const pages = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
  db.exec(`PRAGMA max_page_count = ${pages}`);
  return { free: () => db.exec("PRAGMA max_page_count = 1073741823") };
}
