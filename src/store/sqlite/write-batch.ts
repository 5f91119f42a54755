/**
 * Group commit for one SQLite connection: the first write of a tick opens a transaction, every write of that tick
 * runs in it at once (so reads see it), and the transaction commits once, after the tick's other I/O callbacks
 * (setImmediate): one sync for everything written together — many HTTP submits, many instances' turn commits. A
 * durable write's promise resolves after that commit; if the commit fails, every write of the batch is rejected.
 */
import type { Database } from "bun:sqlite";

export class WriteBatch {
  private open = false;
  private waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  /** Commits made: one sync each (for the bench and the closing note's count). */
  commits = 0;

  constructor(private readonly db: Database) {}

  /** Runs `write` in the tick's transaction; resolves once it is durable. */
  durable(write: () => void): Promise<void> {
    try {
      this.run(write);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
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
    this.waiters = [];
    this.open = false;
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
    for (const waiter of waiters) waiter.resolve();
  }
}
