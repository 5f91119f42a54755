/**
 * Where the runtime events the agent children send go, as they arrive: into the store (the swarm's record, read by
 * `goondan logs`, the API and watchers catching up), to every live subscriber (streams), and, for `tool.*` events, as
 * progress records to whoever watches the trace they belong to (a terminal chat's tool lines, connectors that asked).
 */
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import { toolProgressOf } from "../../protocol/turn-progress.ts";
import type { Store } from "../../store/store.ts";
import { ProgressWatchers, type ProgressListener } from "./progress-watchers.ts";

export type RuntimeEventListener = (events: readonly RuntimeEvent[]) => void;

export class RuntimeEventHub {
  private readonly listeners = new Set<RuntimeEventListener>();
  private readonly progress = new ProgressWatchers();

  constructor(private readonly options: { store: Store; swarm: () => string }) {}

  publish(events: readonly RuntimeEvent[]): void {
    this.options.store.appendRuntimeEvents(this.options.swarm(), events);
    for (const listener of this.listeners) listener(events);
    for (const event of events) {
      const progress = toolProgressOf(event);
      if (progress !== undefined) this.progress.publish(progress);
    }
  }

  /** Calls `listener` with every batch as it arrives; returns the unsubscribe. */
  subscribe(listener: RuntimeEventListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Hands the progress of `traceId`'s turns to `listener`; returns the function that stops it. */
  watchTrace(traceId: string, listener: ProgressListener): () => void {
    return this.progress.watch(traceId, listener);
  }
}
