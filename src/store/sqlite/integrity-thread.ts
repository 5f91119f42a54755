/**
 * The body of the integrity check's worker (integrity-check.ts), on a thread of its own: opens the state database
 * read-only with its own connection and runs `PRAGMA quick_check` (every page's structure and every table's rows,
 * without cross-checking indexes against their tables: linear in the file's size), off the orchestrator's event loop.
 * Message in: `{file, maxErrors}`; out: `{problems: string[]}` (empty when the database is sound).
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

self.onmessage = (message: MessageEvent<{ file: string; maxErrors: number }>) => {
  const { file, maxErrors } = message.data;
  let db: Database | undefined;
  try {
    db = new Database(file, { readonly: true });
    const rows = db.query(`PRAGMA quick_check(${Math.max(1, Math.floor(maxErrors))})`).all() as {
      quick_check: string;
    }[];
    const problems = rows.map((row) => row.quick_check).filter((line) => line !== "ok");
    self.postMessage({ problems });
  } catch (error) {
    // A page so damaged that the check itself cannot read it.
    self.postMessage({ problems: [error instanceof Error ? error.message : String(error)] });
  } finally {
    db?.close();
  }
};
