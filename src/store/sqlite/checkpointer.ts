/**
 * Keeps the write-ahead log short without stalling the orchestrator. SQLite's automatic checkpoint runs inside
 * whichever commit crosses 1000 pages of log, on the committing thread: copying pages and syncing the database
 * file there held the event loop for milliseconds (the p99 of every commit). The store turns it off on its own
 * connection and this runs the checkpoint on a worker thread with its own connection instead (checkpoint-thread.ts),
 * a PASSIVE one every `intervalMs`, which never blocks a writer. A worker that cannot run leaves SQLite's automatic
 * checkpoint on, as before.
 */
import type { Database } from "bun:sqlite";

export class Checkpointer {
  private worker: Worker | undefined;
  /** Log frames copied into the database so far (for tests and the bench). */
  checkpointed = 0;
  /** The last checkpoint failure, if any (a busy database is retried at the next interval). */
  lastError: string | undefined;

  constructor(options: { db: Database; file: string; intervalMs?: number }) {
    try {
      const worker = new Worker(new URL("./checkpoint-thread.ts", import.meta.url).href);
      worker.onmessage = (message: MessageEvent<{ checkpointed?: number; error?: string }>) => {
        if (message.data.checkpointed !== undefined) this.checkpointed += message.data.checkpointed;
        if (message.data.error !== undefined) this.lastError = message.data.error;
      };
      worker.unref();
      worker.postMessage({ file: options.file, intervalMs: options.intervalMs ?? 200 });
      options.db.exec("PRAGMA wal_autocheckpoint = 0");
      this.worker = worker;
    } catch {
      // no worker: SQLite's own checkpoint stays on
    }
  }

  /** Stops the worker and closes its connection (before the store closes its own, which checkpoints the rest). */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    this.worker = undefined;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2_000);
      worker.addEventListener("message", (message: MessageEvent<{ stopped?: boolean }>) => {
        if (message.data.stopped) {
          clearTimeout(timer);
          resolve();
        }
      });
      worker.postMessage({ stop: true });
    });
    worker.terminate();
  }
}
