/**
 * What a stream read from the store waits on between two reads: this node's next batch of runtime events (a turn's
 * own progress and end are among them), two seconds at the latest (on a cluster node the turn may run on another
 * node), or the client going away. One per stream; `stop()` when the stream ends.
 */
import type { ApiBackend } from "./api-backend.ts";

/** How long a stream read from the store waits for news before it reads again. */
export const STORE_POLL_MS = 2_000;

export interface StoreWake {
  /** True once the client went away. */
  readonly gone: boolean;
  /** Resolves on the next batch of runtime events, after STORE_POLL_MS, or once the client is gone. */
  next(): Promise<void>;
  stop(): void;
}

export function storeWake(backend: ApiBackend, closed: Promise<void>): StoreWake {
  let gone = false;
  void closed.then(() => (gone = true));
  let wake: () => void = () => {};
  const stop = backend.orchestrator.onRuntimeEvents(() => wake());
  return {
    get gone() {
      return gone;
    },
    async next() {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, STORE_POLL_MS);
        }),
        closed,
      ]);
      clearTimeout(timer);
    },
    stop,
  };
}
