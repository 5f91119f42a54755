/**
 * Group commit for one SQLite connection: the first write of a tick opens a transaction, every write of that tick
 * runs in it at once (so reads see it), and the transaction commits once, after the tick's other I/O callbacks
 * (setImmediate), without waiting for the disk (`synchronous=NORMAL`). A batch holding a write someone waits on
 * (the default; `sync: false` is a write nobody outside waits on, store.ts WriteOptions) then waits for the log's
 * fsync, which runs off the event loop and covers every batch committed before it (wal-sync.ts). A write's
 * `committed` callback runs once its batch is committed, before the sync; its promise resolves when the batch is
 * committed and, if it needs it, synced.
 *
 * Store faults (store-fault.ts) refuse the whole batch: a commit that fails (a full disk fails here, when the log is
 * written), or a write that fails with a fault mid-tick (SQLite may have rolled the transaction back already), rolls
 * back the tick's transaction and rejects every write of it with E_STORE_UNAVAILABLE or E_STORE_CORRUPT; none of
 * their `committed` callbacks runs, and the next tick starts afresh, so writes succeed again once space frees. A
 * failed fsync is different: what the log held may not be on disk, and a later fsync cannot say so, so every write
 * after it is refused until goondan restarts (as PostgreSQL does).
 */
import type { Database } from "bun:sqlite";
import { SystemError } from "../../shared/errors.ts";
import { STORE_UNAVAILABLE, storeFault } from "../store-fault.ts";
import { WalSync } from "./wal-sync.ts";

type Waiter = { resolve: () => void; reject: (error: Error) => void; committed: (() => void) | undefined };

export class WriteBatch {
  private open = false;
  private needsSync = false;
  private waiters: Waiter[] = [];
  private readonly wal: WalSync;
  /** Set once an fsync of the log failed: every write after it is refused. */
  private failed: Error | undefined;
  /** Transactions committed (for the bench and the closing note's count). */
  commits = 0;

  /** `rolledBack`: called after a batch was rolled back (the store drops what it remembered of its writes). */
  constructor(
    private readonly db: Database,
    private readonly file: string,
    private readonly rolledBack: () => void = () => undefined,
  ) {
    this.wal = new WalSync(`${file}-wal`);
  }

  /** fsyncs of the log made so far. */
  get syncs(): number {
    return this.wal.syncs;
  }

  /**
   * Runs `write` in the tick's transaction now (a write that fails throws here, and nothing of it is kept);
   * `committed` runs once the transaction is committed (before its sync); resolves once it is committed and, unless
   * `sync: false`, on disk.
   */
  durable(write: () => void, options: { sync?: boolean; committed?: () => void } = {}): Promise<void> {
    this.run(write);
    if (options.sync !== false) this.needsSync = true;
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject, committed: options.committed }));
  }

  /** Runs `write` in the tick's transaction, without waiting for the commit. */
  run(write: () => void): void {
    if (this.failed !== undefined) throw this.failed;
    try {
      if (!this.open) {
        this.db.exec("BEGIN IMMEDIATE"); // takes the write lock now, waiting out a checkpoint (busy_timeout): a deferred one would fail at once on upgrade
        this.open = true;
        setImmediate(() => this.flush());
      }
      write();
    } catch (error) {
      const fault = storeFault(error, this.file);
      // A fault may have rolled the transaction back under us: the tick's other writes are gone with it.
      if (fault !== error || !this.db.inTransaction) this.abort(toError(fault));
      throw fault;
    }
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
      this.rollback();
      const fault = toError(storeFault(error, this.file));
      for (const waiter of waiters) waiter.reject(fault);
      return;
    }
    for (const waiter of waiters) {
      try {
        waiter.committed?.();
      } catch {
        // the caller's own bug: it must not keep the other writes of the batch from their answers
      }
    }
    if (!sync) {
      for (const waiter of waiters) waiter.resolve();
      return;
    }
    this.wal.sync().then(
      () => waiters.forEach((waiter) => waiter.resolve()),
      (error: Error) => {
        this.failed ??= new SystemError(
          STORE_UNAVAILABLE,
          `the store's log ${this.file}-wal could not be synced to disk (${error.message}); what it held may not be on disk`,
          { suggestion: "fix the disk, then restart goondan: it refuses every write until then", cause: error },
        );
        for (const waiter of waiters) waiter.reject(this.failed);
      },
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

  /** The tick's transaction is lost: rolled back, and every write of it refused. */
  private abort(error: Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    this.open = false;
    this.needsSync = false;
    this.rollback();
    for (const waiter of waiters) waiter.reject(error);
  }

  private rollback(): void {
    try {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
    } catch {
      // the transaction is already gone
    }
    this.rolledBack();
  }
}

const toError = (value: unknown): Error => (value instanceof Error ? value : new Error(String(value)));
