/**
 * The body of the checkpoint worker (checkpointer.ts), on a thread of its own: its own connection to the state
 * database, copying the write-ahead log back into the database file every `intervalMs` (a PASSIVE checkpoint, which
 * never blocks the orchestrator's writes), with the fsyncs that implies, off the orchestrator's event loop.
 * Messages in: `{stop: true}`; out: `{checkpointed: frames}` after each checkpoint that moved frames, `{stopped}`.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

let db: Database | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

self.onmessage = (message: MessageEvent<{ file?: string; intervalMs?: number; stop?: boolean }>) => {
  if (message.data.stop) {
    if (timer !== undefined) clearInterval(timer);
    db?.close();
    db = undefined;
    self.postMessage({ stopped: true });
    return;
  }
  if (message.data.file === undefined || db !== undefined) return;
  db = new Database(message.data.file, { readwrite: true, create: false });
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA synchronous = NORMAL");
  timer = setInterval(() => {
    try {
      const row = db?.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { checkpointed: number } | null;
      if (row && row.checkpointed > 0) self.postMessage({ checkpointed: row.checkpointed });
    } catch (error) {
      self.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  }, message.data.intervalMs ?? 200);
};
