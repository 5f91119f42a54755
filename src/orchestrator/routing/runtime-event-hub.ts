/**
 * Where what the agent children report as they run goes. Runtime events: into the store (the swarm's record, read
 * by `goondan logs`, the API and watchers catching up), to every live subscriber (`GET /v1/watch`), and, for `tool.*`
 * events, as progress records to whoever watches the trace they belong to (a terminal chat's tool lines, connectors
 * that asked, an HTTP stream). A turn's streamed text (`turn_delta`) and the restarts that void it become progress
 * records of its event only; nothing is built when nobody watches the trace.
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { ChildToParent } from "../../protocol/ipc-messages.ts";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import { isOwnTurnProgress, toolProgressOf } from "../../protocol/turn-progress.ts";
import type { Store, StoredRuntimeEvent } from "../../store/store.ts";
import type { InstanceHooks } from "../instances/instance-options.ts";
import { ProgressWatchers, type ProgressListener } from "./progress-watchers.ts";

/**
 * Hears each batch of runtime events as it is kept, with the cursors the store gave them. They are written within
 * the store's batching interval; a listener that shows them outside the process waits for `committed()` first
 * (Store.commitRuntimeEvents: the end of the tick; false when the store could not keep them), so that no crash
 * loses an event a client saw.
 */
export type RuntimeEventListener = (rows: readonly StoredRuntimeEvent[], committed: () => Promise<boolean>) => void;

export class RuntimeEventHub {
  private readonly listeners = new Set<RuntimeEventListener>();
  private readonly progress = new ProgressWatchers();
  private readonly committed = () =>
    this.options.store.commitRuntimeEvents().then(
      () => true,
      () => false,
    );

  constructor(private readonly options: { store: Store; swarm: () => string }) {}

  publish(events: readonly RuntimeEvent[]): void {
    const rows = this.options.store.appendRuntimeEvents(this.options.swarm(), events);
    for (const listener of this.listeners) listener(rows, this.committed);
    for (const event of events) {
      const progress = toolProgressOf(event);
      if (progress !== undefined) this.progress.publish(progress);
    }
  }

  /** Streamed text of the turn running `event` (`turn_delta`); a `restarted` message voids what came before. */
  turnDelta(event: AgentEvent | undefined, text: ChildToParent["turn_delta"]): void {
    if (event === undefined || event.id !== text.eventId || !this.progress.watched(event.traceId)) return;
    const about = { agent: event.agent, instanceKey: event.instanceKey, traceId: event.traceId, eventId: event.id };
    if (text.restarted === true) this.progress.publish({ kind: "restarted", ...about, reason: "retry" });
    if (text.text !== "") this.progress.publish({ kind: "delta", ...about, text: text.text });
  }

  /** `event` is delivered again after its earlier delivery ended unanswered: its text starts over. */
  redelivered(event: AgentEvent): void {
    if (!this.progress.watched(event.traceId)) return;
    this.progress.publish({
      kind: "restarted",
      agent: event.agent,
      instanceKey: event.instanceKey,
      traceId: event.traceId,
      eventId: event.id,
      reason: "redelivered",
    });
  }

  /** The instances' hooks that report to this hub: runtime events, streamed text, redeliveries. */
  instanceHooks(): Pick<InstanceHooks, "runtimeEvents" | "turnDelta" | "redelivered"> {
    return {
      runtimeEvents: (_instance, events) => this.publish(events),
      turnDelta: (instance, text) => this.turnDelta(instance.inFlight?.event, text),
      redelivered: (_instance, entry) => this.redelivered(entry.event),
    };
  }

  /** Calls `listener` with every batch as it arrives; returns the unsubscribe. */
  subscribe(listener: RuntimeEventListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Hands `event`'s progress to `listener`: the tool calls of its whole trace (its turn and the turns it delegated
   * to), its own turn's text and restarts. Returns the function that stops it.
   */
  watchEvent(event: Pick<AgentEvent, "id" | "traceId">, listener: ProgressListener): () => void {
    return this.progress.watch(event.traceId, (progress) => {
      if (!isOwnTurnProgress(progress) || progress.eventId === event.id) listener(progress);
    });
  }
}
