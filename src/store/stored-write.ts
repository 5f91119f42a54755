/**
 * A store write seen as its two moments: `committed` (stored: on an ordered store committed to the log, before its
 * sync; else durable) and `durable`. What depends on the write having happened waits for `committed`; whoever must
 * be told it is on disk waits for `durable`. A write the store refuses (thrown at once or at its commit) rejects
 * both. A store or a wrapper that never calls `committed` (a cluster's placement) is committed once durable.
 */
import type { WriteOptions } from "./store.ts";

export interface StoredWrite {
  committed: Promise<void>;
  durable: Promise<void>;
}

export function storedWrite(write: (options: WriteOptions) => Promise<void>, options: WriteOptions = {}): StoredWrite {
  const committed = Promise.withResolvers<void>();
  let durable: Promise<void>;
  try {
    durable = write({
      ...options,
      committed: () => {
        options.committed?.();
        committed.resolve();
      },
    });
  } catch (error) {
    durable = Promise.reject(error);
  }
  durable.then(committed.resolve, committed.reject);
  // Whoever waits for `committed` alone hears of a refusal there; an unwatched `durable` rejection is not a crash.
  committed.promise.catch(() => undefined);
  return { committed: committed.promise, durable };
}
