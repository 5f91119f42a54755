/**
 * The events one `GET /v1/watch` streams, from the moment it opens: this node's own (the backend's `watch`) and, on
 * a cluster node, the other nodes' (the backend's `clusterLive`; every event then names its `node`, this node's
 * included). They are held until the watch has replayed what it was asked to (`after=`), then those not replayed
 * are sent, and from then on each as it comes. The stored events of the replay come from this node's store, or on a
 * cluster node from every node's (the cluster reads, paged until no node has more).
 */
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { UnansweredNode } from "../cluster/members/node-fan-out.ts";
import type { ApiBackend } from "./api-backend.ts";
import { readRuntimeEvents } from "./runtime-event-reads.ts";

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
  /** Sends the events held so far but those `replayed` (by eventKey), then every later one as it comes. */
  release(send: (event: WatchedEvent) => void, replayed?: ReadonlySet<string>): void;
  stop(): void;
}

/** What tells a replayed event from a live one (the same event read from a store and heard live). */
export function eventKey(event: WatchedEvent): string {
  return JSON.stringify(event);
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
  const stopOwn = backend.orchestrator.onRuntimeEvents((events) =>
    take(node === undefined ? events : events.map((event) => ({ ...event, node }))),
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
    release: (send, replayed = new Set()) => {
      const late = held;
      held = [];
      sink = send;
      for (const event of late) if (!replayed.has(eventKey(event))) send(event);
    },
    stop: () => {
      stopOwn();
      others?.stop();
    },
  };
}

/**
 * Sends the stored events after `after` (a number on one host, a cluster cursor on a cluster node) and returns
 * their keys, and on a cluster node the nodes that did not answer some page. Read as `GET /v1/runtime-events` reads
 * them (runtime-event-reads.ts), page after page while a node has more and each page moves the cursor on.
 */
export async function replayStored(
  backend: ApiBackend,
  filters: ReplayFilters,
  after: number | string,
  send: (event: WatchedEvent) => void,
): Promise<{ replayed: Set<string>; unanswered: UnansweredNode[] }> {
  const replayed = new Set<string>();
  const unanswered = new Map<string, UnansweredNode>();
  let cursor = after;
  for (;;) {
    const page = await readRuntimeEvents(backend, filters, cursor);
    for (const event of page.events) {
      replayed.add(eventKey(event));
      send(event);
    }
    for (const node of page.unanswered ?? []) unanswered.set(node.node, node);
    const moved = String(page.cursor) !== String(cursor);
    cursor = page.cursor;
    if (page.more !== true || !moved) break;
  }
  return { replayed, unanswered: [...unanswered.values()] };
}
