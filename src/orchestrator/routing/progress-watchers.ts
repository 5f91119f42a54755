/**
 * Who waits on the progress of which trace: a submitter that passed `onProgress` watches its event's traceId until
 * its outcome settles, and every progress record the children's runtime events make is handed to the watchers of its trace, so the
 * tool calls of delegated turns (same traceId) reach the one who asked too.
 */
import type { TurnProgress } from "../../protocol/turn-progress.ts";

export type ProgressListener = (progress: TurnProgress) => void;

export class ProgressWatchers {
  private readonly byTrace = new Map<string, Set<ProgressListener>>();

  /** Starts handing `traceId`'s progress to `listener`; returns the function that stops it. */
  watch(traceId: string, listener: ProgressListener): () => void {
    const listeners = this.byTrace.get(traceId) ?? new Set<ProgressListener>();
    listeners.add(listener);
    this.byTrace.set(traceId, listeners);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.byTrace.get(traceId) === listeners) this.byTrace.delete(traceId);
    };
  }

  /** Whether anyone watches `traceId` (nothing need be built for it otherwise). */
  watched(traceId: string): boolean {
    return this.byTrace.has(traceId);
  }

  publish(progress: TurnProgress): void {
    for (const listener of this.byTrace.get(progress.traceId) ?? []) {
      try {
        listener(progress);
      } catch {
        // a listener's fault is its own: the turn and the other listeners go on
      }
    }
  }
}
