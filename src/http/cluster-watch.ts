/**
 * `GET /v1/watch` on a cluster node, resumable like one host's (stored-watch.ts): every event is read from the
 * nodes' stores through the cluster reads, never sent from memory, and goes out with the cluster cursor after it as
 * its SSE `id` (each node's stored position, `n1:12,n2:40`), so a client that reconnects with `Last-Event-ID` (or
 * `after=`) gets exactly the events after it: no gap and no double, across a restart of any node's orchestrator too.
 * A node's events go out in its store's order (the cursor of each follows the one before), the nodes' interleaved
 * as the cluster read merges them by time. The live events of this node and the others (watch-feed.ts) only wake
 * the stream, which then reads what the stores hold past its cursor; it reads again every two seconds besides, for
 * a node whose live events did not reach this one. The first message, `event: ready` `{cursor}`, carries the start
 * as its id; `event: cluster` `{unanswered}` names the nodes a read could not ask, when that changes.
 */
import type { UnansweredNode } from "../cluster/members/node-fan-out.ts";
import {
  type ClusterCursor,
  formatClusterCursor,
  type NodeRuntimeEvent,
} from "../cluster/view/runtime-events-merge.ts";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { ApiBackend } from "./api-backend.ts";
import type { SseWriter } from "./sse-stream.ts";
import type { ReplayFilters, WatchFeed } from "./watch-feed.ts";

/** How often a cluster watch reads the stores even when no live event woke it. */
export const CLUSTER_WATCH_POLL_MS = 2000;

/** The page's events with their node's cursor, each node's in its store's order, the nodes' turns kept. */
export function inNodeOrder(events: readonly NodeRuntimeEvent[], cursors: readonly number[]) {
  const byNode = new Map<string, Array<{ event: NodeRuntimeEvent; cursor: number }>>();
  events.forEach((event, index) => {
    const list = byNode.get(event.node) ?? [];
    list.push({ event, cursor: cursors[index] ?? 0 });
    byNode.set(event.node, list);
  });
  for (const list of byNode.values()) list.sort((left, right) => left.cursor - right.cursor);
  return events.map((event) => byNode.get(event.node)?.shift() as { event: NodeRuntimeEvent; cursor: number });
}

export async function streamClusterEvents(options: {
  backend: ApiBackend;
  writer: SseWriter;
  feed: WatchFeed;
  filters: ReplayFilters;
  matches: (event: RuntimeEvent) => boolean;
  /** Where to start; absent: from now (every node's newest event). */
  after?: ClusterCursor;
  /** The nodes that did not answer when the watch opened. */
  unanswered: UnansweredNode[];
}): Promise<void> {
  const { writer } = options;
  const reads = options.backend.cluster?.reads;
  if (reads === undefined) return;
  let dirty = true;
  let wake: (() => void) | undefined;
  const touch = () => {
    dirty = true;
    wake?.();
  };
  options.feed.release(touch);
  const poll = setInterval(touch, CLUSTER_WATCH_POLL_MS);
  try {
    let cursor = options.after ?? (await reads.runtimeEvents({ limit: 1 })).cursor;
    writer.send({ event: "ready", id: formatClusterCursor(cursor), data: { cursor: formatClusterCursor(cursor) } });
    let unanswered = JSON.stringify(options.unanswered);
    if (options.unanswered.length > 0) writer.send({ event: "cluster", data: { unanswered: options.unanswered } });
    while (!writer.isClosed) {
      if (!dirty) await Promise.race([new Promise<void>((resolve) => (wake = resolve)), writer.closed]);
      wake = undefined;
      if (writer.isClosed) return;
      dirty = false;
      for (let more = true; more && !writer.isClosed; ) {
        const page = await reads.runtimeEvents({ ...options.filters, after: cursor });
        for (const { event, cursor: position } of inNodeOrder(page.events, page.cursors ?? [])) {
          cursor = { ...cursor, [event.node]: Math.max(cursor[event.node] ?? 0, position) };
          if (options.matches(event)) writer.send({ event: "runtime", id: formatClusterCursor(cursor), data: event });
        }
        for (const [node, position] of Object.entries(page.cursor))
          cursor = { ...cursor, [node]: Math.max(cursor[node] ?? 0, position) };
        if (JSON.stringify(page.unanswered) !== unanswered) {
          unanswered = JSON.stringify(page.unanswered);
          writer.send({ event: "cluster", data: { unanswered: page.unanswered } });
        }
        more = page.more && page.events.length > 0;
      }
    }
  } finally {
    clearInterval(poll);
  }
}
