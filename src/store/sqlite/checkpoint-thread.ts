/**
 * The body of the checkpoint worker (checkpointer.ts), on a thread of its own: its own connection to the state
 * database, copying the write-ahead log back into the database file every `intervalMs` (a PASSIVE checkpoint, which
 * never blocks the orchestrator's writes), with the fsyncs that implies, off the orchestrator's event loop; a log
 * grown past WAL_LIMIT_BYTES whose frames are all copied is truncated (TRUNCATE: it waits for the writer's
 * transaction of the tick, then cuts the file, with nothing left to copy).
 * Messages in: `{stop: true}`; out: `{checkpointed: frames}` after each checkpoint that moved frames, `{stopped}`.
 */
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";

declare const self: Worker;

let db: Database | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

/**
 * A log file larger than this, once every frame of it is copied, is truncated. The log is otherwise reused from its
 * start only when a checkpoint catches up between two writes, and under steady writes it grows with them: on a small
 * state root it filled the disk by itself, and then no checkpoint could complete (the database file could not grow).
 */
const WAL_LIMIT_BYTES = 4 * 1024 * 1024;

const walBytes = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

self.onmessage = (
  message: MessageEvent<{ file?: string; intervalMs?: number; walLimitBytes?: number; stop?: boolean }>,
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
  const limit = message.data.walLimitBytes ?? WAL_LIMIT_BYTES;
  timer = setInterval(() => {
    try {
      const row = db?.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number; checkpointed: number } | null;
      if (row && row.checkpointed > 0) self.postMessage({ checkpointed: row.checkpointed });
      // Every frame is in the database already: a log grown past the limit is cut back to nothing.
      if (row && row.log === row.checkpointed && walBytes(walFile) > limit)
        db?.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
    } catch (error) {
      self.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  }, message.data.intervalMs ?? 200);
};
