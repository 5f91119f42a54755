/**
 * Makes committed transactions durable off the event loop. The database runs with `synchronous=NORMAL` (a commit
 * appends to the write-ahead log without waiting for the disk), and this syncs the log file with an asynchronous
 * fsync, so the orchestrator keeps routing while the disk works: a commit that someone waits on resolves only once
 * an fsync that began after it has finished. Syncs are never run two at once; the commits that arrive while one
 * runs all wait for the next, which covers them all (the log is written in order, so one fsync covers every commit
 * before it). An fsync that fails rejects every commit waiting on it.
 */
import { existsSync, fsync, openSync, closeSync } from "node:fs";

type Waiter = { resolve: () => void; reject: (error: Error) => void };

export class WalSync {
  private fd: number | undefined;
  private running: Promise<void> | undefined;
  private waiting: Waiter[] = [];
  /** fsync calls made (for the bench and the closing note's count). */
  syncs = 0;

  constructor(private readonly walFile: string) {}

  /** Resolves once the log, as written now, is on disk. */
  sync(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (this.running === undefined) this.start();
    });
  }

  /** Resolves once every sync asked for so far is done. */
  async settled(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** Resolves once every sync asked for so far is done; then the log file is let go. */
  async close(): Promise<void> {
    await this.settled();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private start(): void {
    const waiters = this.waiting;
    this.waiting = [];
    this.running = new Promise<void>((done) => {
      const finish = (error: Error | null) => {
        this.syncs += 1;
        for (const waiter of waiters) {
          if (error === null) waiter.resolve();
          else waiter.reject(error);
        }
        this.running = undefined;
        if (this.waiting.length > 0) this.start();
        done();
      };
      try {
        // The log exists once something was written; it stays the same file while the database is open.
        // (finished on a later microtask: `running` is set only once this executor has returned)
        if (this.fd === undefined) {
          if (!existsSync(this.walFile)) return queueMicrotask(() => finish(null));
          this.fd = openSync(this.walFile, "r");
        }
        fsync(this.fd, finish);
      } catch (error) {
        queueMicrotask(() => finish(error instanceof Error ? error : new Error(String(error))));
      }
    });
  }
}
