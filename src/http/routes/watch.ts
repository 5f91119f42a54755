/**
 * `GET /v1/watch`: the swarm's runtime events as they happen, as a `text/event-stream` of `event: runtime` whose
 * data is one RuntimeEvent (src/protocol/runtime-event.ts). Filters, all optional and combined: `agent`,
 * `instanceKey`, `traceId`, and `type`, an event type or a prefix of one (`tool.`). `after=<cursor>` (a cursor of
 * `GET /v1/instances/.../events`, 0 for everything) replays the stored events after it first; live events arriving
 * meanwhile follow, none twice. A heartbeat comment keeps an idle stream alive. On one host every event carries its
 * stored cursor as its `id:`, and a client reconnecting with `Last-Event-ID` continues right after it, across an
 * orchestrator restart too (stored-watch.ts); the header wins over `after=`.
 *
 * On a cluster node every node's events, each naming its `node`, read from every node's store (cluster-watch.ts):
 * the stream opens once every live member was asked for its events (or did not answer in time: an `event: cluster`
 * names those, `{unanswered}`); `after=` takes the cluster cursor of `GET /v1/runtime-events` (`n1:12,n2:40`, or
 * `0`), and every event carries the cluster cursor after it as its `id:`, so `Last-Event-ID` resumes it the same way.
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { ApiBackend } from "../api-backend.ts";
import type { ApiEnv } from "../api-env.ts";
import { AGENT_NAME_SCHEMA, INSTANCE_KEY_SCHEMA, requestSchema } from "../request-schema.ts";
import { pagingSchema } from "../runtime-event-reads.ts";
import { sseResponse, type SseWriter } from "../sse-stream.ts";
import { openWatchFeed, type WatchedEvent } from "../watch-feed.ts";
import { streamClusterEvents } from "../cluster-watch.ts";
import { type ClusterCursor, parseClusterCursor } from "../../cluster/view/runtime-events-merge.ts";
import { streamStoredEvents } from "../stored-watch.ts";
import { ApiError } from "../api-error.ts";
import type { UnansweredNode } from "../../cluster/members/node-fan-out.ts";

interface WatchQuery {
  agent?: string;
  instanceKey?: string;
  type?: string;
  traceId?: string;
  /** A number on one host, a cluster cursor (`n1:12,n2:40` or `0`) on a cluster node. */
  after?: number | string;
}

const watchQuery = (clustered: boolean) =>
  requestSchema<WatchQuery>({
    route: "GET /v1/watch",
    part: "query",
    schema: {
      type: "object",
      additionalProperties: false,
      properties: {
        agent: AGENT_NAME_SCHEMA,
        instanceKey: INSTANCE_KEY_SCHEMA,
        type: { type: "string", minLength: 1, maxLength: 100, pattern: "^[a-z.]+$" },
        traceId: { type: "string", minLength: 1, maxLength: 200 },
        after: pagingSchema(clustered).after ?? null,
      },
    },
  });
const queries = { host: watchQuery(false), cluster: watchQuery(true) };

/** Whether `event` passes the watch's filters. */
export function matchesWatch(query: WatchQuery, event: WatchedEvent): boolean {
  return (
    (query.agent === undefined || event.agent === query.agent) &&
    (query.instanceKey === undefined || event.instanceKey === query.instanceKey) &&
    (query.traceId === undefined || event.traceId === query.traceId) &&
    (query.type === undefined || event.type.startsWith(query.type))
  );
}

export function watchRoutes(options: { backend: ApiBackend; heartbeatMs?: number }): Hono<ApiEnv> {
  const { backend } = options;
  // `after` is a cursor of the stored reads: a cluster cursor wherever they are the cluster's (as GET /v1/runtime-events).
  const query = backend.cluster ? queries.cluster : queries.host;
  return new Hono<ApiEnv>().get(
    "/v1/watch",
    validator("query", (value) => query(value)),
    async (c) => {
      const query = c.req.valid("query");
      if (!backend.cluster) {
        const after = resumeCursor(c.req.header("last-event-id")) ?? query.after;
        const { agent, instanceKey, traceId } = query;
        return sseResponse({
          c,
          ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
          run: (writer) =>
            streamStoredEvents({
              backend,
              writer,
              filters: {
                ...(agent === undefined ? {} : { agent }),
                ...(instanceKey === undefined ? {} : { instanceKey }),
                ...(traceId === undefined ? {} : { traceId }),
              },
              matches: (event) => matchesWatch(query, event),
              ...(typeof after === "number" ? { after } : {}),
            }),
        });
      }
      // The header wins over `after=`: a cluster cursor either way (`0` the start).
      const after = clusterResumeCursor(c.req.header("last-event-id")) ?? clusterAfter(query.after);
      // Live events wake the stream from here on, while the other nodes are asked (cluster-watch.ts).
      const feed = openWatchFeed(backend);
      let unanswered: UnansweredNode[];
      try {
        unanswered = await feed.ready;
      } catch (error) {
        feed.stop();
        throw error;
      }
      // Gone while the other nodes were asked: nothing to stream to.
      if (c.req.raw.signal.aborted) {
        feed.stop();
        return c.body(null, 204);
      }
      return sseResponse({
        c,
        ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
        run: async (writer) => {
          const { agent, instanceKey, traceId } = query;
          try {
            await streamClusterEvents({
              backend,
              writer,
              feed,
              unanswered,
              filters: {
                ...(agent === undefined ? {} : { agent }),
                ...(instanceKey === undefined ? {} : { instanceKey }),
                ...(traceId === undefined ? {} : { traceId }),
              },
              matches: (event) => matchesWatch(query, event),
              ...(after === undefined ? {} : { after }),
            });
          } finally {
            feed.stop();
          }
        },
      });
    },
  );
}

/** `after=` on a cluster node (validated by the query schema): the cursor, or undefined for "from now". */
function clusterAfter(after: number | string | undefined): ClusterCursor | undefined {
  return after === undefined ? undefined : parseClusterCursor(String(after));
}

/** A `Last-Event-ID` of a cluster node's watch: the cluster cursor after the last event the client got. */
function clusterResumeCursor(header: string | undefined): ClusterCursor | undefined {
  if (header === undefined || header === "") return undefined;
  try {
    return parseClusterCursor(header);
  } catch {
    throw new ApiError({
      status: 400,
      code: "E_API_BAD_REQUEST",
      message: `GET /v1/watch: header Last-Event-ID: expected the id of an event this watch sent (a cluster cursor, n1:12,n2:40), got ${JSON.stringify(header.slice(0, 100))}`,
    });
  }
}

/** A `Last-Event-ID` of one host's watch: the stored cursor of the last event the client got. */
function resumeCursor(header: string | undefined): number | undefined {
  if (header === undefined || header === "") return undefined;
  if (!/^\d{1,15}$/.test(header))
    throw new ApiError({
      status: 400,
      code: "E_API_BAD_REQUEST",
      message: `GET /v1/watch: header Last-Event-ID: expected the id of an event this watch sent (a whole number), got ${JSON.stringify(header.slice(0, 100))}`,
    });
  return Number(header);
}
