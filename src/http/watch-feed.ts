/**
 * The live events a cluster node's `GET /v1/watch` hears from the moment it opens: this node's own (the
 * orchestrator's) and the other nodes' (the backend's `cluster.live`; every event then names its `node`, this node's
 * included). They are held until the watch is ready for them, then handed on as they come; the watch reads the
 * events themselves from the stores (cluster-watch.ts), so these only wake it.
 */
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { UnansweredNode } from "../cluster/members/node-fan-out.ts";
import type { ApiBackend } from "./api-backend.ts";

export type WatchedEvent = RuntimeEvent & { node?: string };

/** The stored-event filters a replay passes on (the type filter is the route's). */
export interface ReplayFilters {
  agent?: string;
  instanceKey?: string;
  traceId?: string;
}

export interface WatchFeed {
  /** Resolves once the other nodes were asked for their events (at once on one host): those that did not answer. */
  readonly ready: Promise<UnansweredNode[]>;
  /** Hands the events held so far to `send`, then every later one as it comes. */
  release(send: (event: WatchedEvent) => void): void;
  stop(): void;
}

export function openWatchFeed(backend: ApiBackend): WatchFeed {
  let held: WatchedEvent[] = [];
  let sink: ((event: WatchedEvent) => void) | undefined;
  const take = (events: readonly WatchedEvent[]) => {
    if (sink === undefined) held.push(...events);
    else for (const event of events) sink(event);
  };
  const live = backend.cluster?.live;
  const node = live?.node;
  const stopOwn = backend.orchestrator.onRuntimeEvents((rows) =>
    take(rows.map(({ event }) => (node === undefined ? event : { ...event, node }))),
  );
  let others: ReturnType<NonNullable<typeof live>["open"]> | undefined;
  try {
    others = live?.open(take);
  } catch (error) {
    stopOwn();
    throw error;
  }
  return {
    ready: others === undefined ? Promise.resolve([]) : others.ready.then((answer) => answer.unanswered),
    release: (send) => {
      const late = held;
      held = [];
      sink = send;
      for (const event of late) send(event);
    },
    stop: () => {
      stopOwn();
      others?.stop();
    },
  };
}
