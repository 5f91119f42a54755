/**
 * The stored runtime events a route answers with, from this node's store or, on a cluster node, from every node
 * merged in time order (each event naming its `node`). Paging is the same on both: `limit` keeps the newest N,
 * `after` takes an earlier answer's `cursor`. One host's cursor is a number; a cluster's is each node's position,
 * written `n1:12,n2:40` (`0` is the start on both), and a cluster answer names the nodes that did not answer, and
 * says `more` when a node's events did not fit in one page (ask again from the cursor).
 */
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import {
  CLUSTER_CURSOR_PATTERN,
  formatClusterCursor,
  parseClusterCursor,
} from "../cluster/view/runtime-events-merge.ts";
import type { UnansweredNode } from "../cluster/members/node-fan-out.ts";
import type { JsonObject } from "../shared/json.ts";
import type { ApiBackend } from "./api-backend.ts";
import { MAX_EVENTS_LIMIT } from "./request-schema.ts";

export interface EventFilters {
  agent?: string;
  instanceKey?: string;
  turnId?: string;
  traceId?: string;
  limit?: number;
}

export interface EventPage {
  events: Array<RuntimeEvent & { node?: string }>;
  /** Where the next page starts: a number on one host, `node:N,…` on a cluster node. */
  cursor: number | string;
  /** Cluster mode: the nodes whose events this page lacks. */
  unanswered?: UnansweredNode[];
  /** Cluster mode, read forward: more events wait after `cursor` than one page holds. */
  more?: true;
}

/** The query schema of `limit` and `after` for the backend's mode (values arrive as text). */
export function pagingSchema(clustered: boolean): JsonObject {
  return {
    limit: { type: "integer", minimum: 1, maximum: MAX_EVENTS_LIMIT },
    after: clustered
      ? {
          type: "string",
          pattern: CLUSTER_CURSOR_PATTERN,
          description: "a cursor of an earlier answer (n1:12,n2:40) or 0",
        }
      : { type: "integer", minimum: 0 },
  };
}

/** The events matching `filters` after `after` (a value `pagingSchema` passed). */
export async function readRuntimeEvents(
  backend: ApiBackend,
  filters: EventFilters,
  after?: number | string,
): Promise<EventPage> {
  const cluster = backend.cluster;
  if (cluster) {
    const from = parseClusterCursor(after === undefined ? "" : String(after));
    const page = await cluster.reads.runtimeEvents({ ...filters, after: from });
    return {
      events: page.events,
      cursor: formatClusterCursor(page.cursor),
      unanswered: page.unanswered,
      ...(page.more ? { more: true as const } : {}),
    };
  }
  const position = typeof after === "number" ? after : undefined;
  const rows = await backend.orchestrator.runtimeEvents({
    ...filters,
    ...(position === undefined ? {} : { after: position }),
  });
  return { events: rows.map((row) => row.event), cursor: rows.at(-1)?.cursor ?? position ?? 0 };
}
