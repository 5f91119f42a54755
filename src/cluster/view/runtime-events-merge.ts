/**
 * Runtime events of several nodes as one answer. Each node keeps the events its own instances' children sent (they
 * are not in the state log), numbered by its own store's cursor, so a cluster-wide query asks every node with that
 * node's cursor and merges the answers in time order (`at`, then node, then cursor), each event naming its node.
 * `limit` keeps the newest N of the merge, as one host's store keeps the newest N of its events. The paging cursor
 * is a vector of each node's cursor, written `n1:12,n2:40` (node names never hold `:` or `,`); a node that did not
 * answer keeps the position it had, so the next page asks it again from there. A node whose answer was cut to what
 * one NATS message carries (`more`) bounds the page: read forward, the page ends at that node's last event (every
 * node's cursor stops there, and `more` says to ask again); newest first (`limit`), it starts at that node's oldest
 * event, so no event is left out of the middle of a page.
 */
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import type { StoredRuntimeEvent } from "../../store/store.ts";

/** Each node's position in its own store's runtime events; a node absent from it is read from the start. */
export type ClusterCursor = Record<string, number>;

export type NodeRuntimeEvent = RuntimeEvent & { node: string };

const NODE_POSITION = /^([A-Za-z0-9._-]{1,64}):(\d{1,15})$/;

/** The text of a cluster cursor that matches `parseClusterCursor`, for request schemas: `0`, or `node:N` joined by commas. */
export const CLUSTER_CURSOR_PATTERN = "^(0|[A-Za-z0-9._-]{1,64}:[0-9]{1,15}(,[A-Za-z0-9._-]{1,64}:[0-9]{1,15})*)$";

/** `n1:12,n2:40` as a cursor; `0` or the empty text is the start. Throws naming what was expected. */
export function parseClusterCursor(text: string): ClusterCursor {
  const cursor: ClusterCursor = {};
  if (text === "" || text === "0") return cursor;
  for (const part of text.split(",")) {
    const match = NODE_POSITION.exec(part);
    if (match === null)
      throw new TypeError(
        `expected a cluster cursor of node:position pairs joined by commas (n1:12,n2:40), got ${JSON.stringify(text.slice(0, 80))}`,
      );
    cursor[match[1] as string] = Number(match[2]);
  }
  return cursor;
}

/** The cursor as text, nodes in name order; `0` when it names none. */
export function formatClusterCursor(cursor: ClusterCursor): string {
  const parts = Object.keys(cursor)
    .sort()
    .map((node) => `${node}:${cursor[node]}`);
  return parts.length === 0 ? "0" : parts.join(",");
}

export interface MergeRuntimeEventsOptions {
  /** Each answering node's rows, oldest first, as its store gave them; `more` when the node cut them to fit. */
  answers: ReadonlyArray<{ node: string; value: readonly StoredRuntimeEvent[]; more?: boolean }>;
  /** The cursor the query started from (kept for nodes that did not answer). */
  after: ClusterCursor;
  limit?: number;
}

export function mergeRuntimeEvents(options: MergeRuntimeEventsOptions): {
  events: NodeRuntimeEvent[];
  /** Each event's cursor in its node's store (a watch resumes after each event exactly: http/cluster-watch.ts). */
  cursors: number[];
  cursor: ClusterCursor;
  more: boolean;
} {
  const rows: Row[] = [];
  for (const { node, value } of options.answers) for (const row of value) rows.push({ node, row });
  rows.sort(compareRows);
  const cut = options.answers.filter((answer) => answer.more === true && answer.value.length > 0);
  const newest = options.limit !== undefined;
  let kept = rows;
  if (cut.length > 0) {
    // Newest first: nothing older than the latest of the cut nodes' oldest events; forward: nothing past the earliest of their last ones.
    const bounds = cut.map(({ node, value }) => ({
      node,
      row: (newest ? value[0] : value.at(-1)) as StoredRuntimeEvent,
    }));
    const bound = bounds.sort(compareRows)[newest ? bounds.length - 1 : 0] as Row;
    kept = rows.filter((row) => (newest ? compareRows(row, bound) >= 0 : compareRows(row, bound) <= 0));
  }
  // The newest `limit`: what was dropped is older than all that is kept, so each node's cursor may pass it.
  if (options.limit !== undefined) kept = kept.slice(Math.max(0, kept.length - options.limit));
  const cursor: ClusterCursor = { ...options.after };
  for (const { node, row } of newest ? rows : kept) cursor[node] = Math.max(cursor[node] ?? 0, row.cursor);
  return {
    events: kept.map(({ node, row }) => ({ ...row.event, node })),
    cursors: kept.map(({ row }) => row.cursor),
    cursor,
    more: !newest && cut.length > 0,
  };
}

interface Row {
  node: string;
  row: StoredRuntimeEvent;
}

function compareRows(a: Row, b: Row): number {
  return compareText(a.row.event.at, b.row.event.at) || compareText(a.node, b.node) || a.row.cursor - b.row.cursor;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
