/**
 * The body of the checkpoint worker (checkpointer.ts), on a thread of its own: its own connection to the state
 * database, copying the write-ahead log back into the database file every `intervalMs` (a PASSIVE checkpoint, which
 * never blocks the orchestrator's writes), with the fsyncs that implies, off the orchestrator's event loop; a log
 * grown past WAL_LIMIT_BYTES whose frames are all copied is truncated (TRUNCATE: it waits for the writer's
 * transaction of the tick and for readers, at most TRUNCATE_WAIT_MS, then cuts the file, with nothing left to copy).
 * Messages in: `{stop: true}`; out: `{checkpointed: frames}` after each checkpoint that copied frames (those it
 * copied), `{stopped}`.
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

/**
 * How long a TRUNCATE may wait for the writer's transaction and for readers (its busy timeout). While it waits, no
 * writer may begin: the orchestrator's next `BEGIN IMMEDIATE` holds its event loop until the TRUNCATE is done or gives
 * up. A reader holding a snapshot (`goondan logs` or `goondan backup` on the state root, the integrity check of a
 * large database) held it for the full 5 s, every interval; now it gives up after this and tries again at the next.
 */
const TRUNCATE_WAIT_MS = 100;
/** Intervals to let pass after a TRUNCATE that gave up before the next one. */
const TRUNCATE_BACKOFF = 10;

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
  db.exec(`PRAGMA busy_timeout = ${TRUNCATE_WAIT_MS}`); // PASSIVE waits for nobody; only TRUNCATE uses it
  db.exec("PRAGMA synchronous = NORMAL");
  const walFile = `${message.data.file}-wal`;
  const limit = message.data.walLimitBytes ?? WAL_LIMIT_BYTES;
  let skipTruncates = 0;
  let copied = 0;
  timer = setInterval(() => {
    try {
      const row = db?.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number; checkpointed: number } | null;
      // `checkpointed` counts the frames of the log copied so far, this pass or earlier: only the new ones are told.
      const fresh =
        row === null || row === undefined ? 0 : row.checkpointed - (row.checkpointed >= copied ? copied : 0);
      copied = row?.checkpointed ?? 0;
      if (fresh > 0) self.postMessage({ checkpointed: fresh });
      // Every frame is in the database already: a log grown past the limit is cut back to nothing. One that gave
      // up (a reader kept its snapshot) is tried again only after TRUNCATE_BACKOFF intervals, not holding writers
      // each time.
      if (skipTruncates > 0) skipTruncates -= 1;
      else if (row && row.log === row.checkpointed && walBytes(walFile) > limit) {
        const cut = db?.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number } | null;
        if (cut?.busy) skipTruncates = TRUNCATE_BACKOFF;
        else copied = 0;
      }
    } catch (error) {
      self.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  }, message.data.intervalMs ?? 200);
};
