/**
 * Group commit for one SQLite connection: the first write of a tick opens a transaction, every write of that tick
 * runs in it at once (so reads see it), and the transaction commits once, after the tick's other I/O callbacks
 * (setImmediate), without waiting for the disk (`synchronous=NORMAL`). A batch holding a write someone waits on
 * (the default; `sync: false` is a write nobody outside waits on, store.ts WriteOptions) then waits for the log's
 * fsync, which runs off the event loop and covers every batch committed before it (wal-sync.ts). A write's promise
 * resolves when its batch is committed and, if it needs it, synced; if the commit fails, every write of the batch
 * is rejected.
 */
import type { Database } from "bun:sqlite";
import { WalSync } from "./wal-sync.ts";

type Waiter = { resolve: () => void; reject: (error: Error) => void };

export class WriteBatch {
  private open = false;
  private needsSync = false;
  private waiters: Waiter[] = [];
  private readonly wal: WalSync;
  /** Transactions committed (for the bench and the closing note's count). */
  commits = 0;

  constructor(
    private readonly db: Database,
    file: string,
  ) {
    this.wal = new WalSync(`${file}-wal`);
  }

  /** fsyncs of the log made so far. */
  get syncs(): number {
    return this.wal.syncs;
  }

  /**
   * Runs `write` in the tick's transaction now (a write that fails throws here, and nothing of it is kept);
   * resolves once it is committed and, unless `sync: false`, on disk.
   */
  durable(write: () => void, options: { sync?: boolean } = {}): Promise<void> {
    this.run(write);
    if (options.sync !== false) this.needsSync = true;
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Runs `write` in the tick's transaction, without waiting for the commit. */
  run(write: () => void): void {
    if (!this.open) {
      this.db.exec("BEGIN");
      this.open = true;
      setImmediate(() => this.flush());
    }
    write();
  }

  /** Commits what is open now (at the end of the tick, and on close). */
  flush(): void {
    if (!this.open) return;
    const waiters = this.waiters;
    const sync = this.needsSync;
    this.waiters = [];
    this.open = false;
    this.needsSync = false;
    try {
      this.db.exec("COMMIT");
      this.commits += 1;
    } catch (error) {
      try {
        this.db.exec("ROLLBACK");
      } catch {
        // the transaction is already gone
      }
      for (const waiter of waiters) waiter.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (!sync) {
      for (const waiter of waiters) waiter.resolve();
      return;
    }
    this.wal.sync().then(
      () => waiters.forEach((waiter) => waiter.resolve()),
      (error: Error) => waiters.forEach((waiter) => waiter.reject(error)),
    );
  }

  /** Commits what is open and resolves once every sync asked for so far is done. */
  async settled(): Promise<void> {
    this.flush();
    await this.wal.settled();
  }

  /** Commits what is open and waits for every sync asked for; then the log file is let go. */
  async close(): Promise<void> {
    this.flush();
    await this.wal.close();
  }
}
