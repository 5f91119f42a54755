/**
 * The body of the checkpoint worker (checkpointer.ts), on a thread of its own: its own connection to the state
 * database, copying the write-ahead log back into the database file every `intervalMs` (a PASSIVE checkpoint, which
 * never blocks the orchestrator's writes), with the fsyncs that implies, off the orchestrator's event loop. Once a
 * checkpoint has copied every frame, the orchestrator's next write starts the log over from its beginning and cuts
 * it back to the store's journal_size_limit (checkpointer.ts): nothing here waits for the writer's lock. Only a log
 * that writes without a pause have grown past WAL_HARD_LIMIT_BYTES, and no PASSIVE checkpoint can catch up with,
 * is checkpointed and cut by a TRUNCATE, which waits for the writer and holds it while it works: back-pressure on a
 * writer that never pauses, so that the log cannot fill the disk.
 * Messages in: `{stop: true}`; out: `{checkpointed: frames}` after each checkpoint that moved frames, `{stopped}`.
 */
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";

declare const self: Worker;

let db: Database | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

/** Past this, a log the checkpoints cannot catch up with is cut with the writer held (a TRUNCATE). */
const WAL_HARD_LIMIT_BYTES = 16 * 1024 * 1024;

const walBytes = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

self.onmessage = (
  message: MessageEvent<{ file?: string; intervalMs?: number; hardLimitBytes?: number; stop?: boolean }>,
) => {
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
  const walFile = `${message.data.file}-wal`;
  const hardLimit = message.data.hardLimitBytes ?? WAL_HARD_LIMIT_BYTES;
  timer = setInterval(() => {
    try {
      const row = db?.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number; checkpointed: number } | null;
      if (row && row.checkpointed > 0) self.postMessage({ checkpointed: row.checkpointed });
      if (row && row.log > row.checkpointed && walBytes(walFile) > hardLimit)
        db?.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
    } catch (error) {
      self.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  }, message.data.intervalMs ?? 200);
};
