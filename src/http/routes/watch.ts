/**
 * `GET /v1/watch`: the swarm's runtime events as they happen, as a `text/event-stream` of `event: runtime` whose
 * data is one RuntimeEvent (src/protocol/runtime-event.ts). Filters, all optional and combined: `agent`,
 * `instanceKey`, `traceId`, and `type`, an event type or a prefix of one (`tool.`). `after=<cursor>` (a cursor of
 * `GET /v1/instances/.../events`, 0 for everything) replays the stored events after it first; live events arriving
 * meanwhile follow, none twice. A heartbeat comment keeps an idle stream alive.
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import type { ApiBackend } from "../api-backend.ts";
import type { ApiEnv } from "../api-env.ts";
import { AGENT_NAME_SCHEMA, INSTANCE_KEY_SCHEMA, requestSchema } from "../request-schema.ts";
import { sseResponse } from "../sse-stream.ts";

interface WatchQuery {
  agent?: string;
  instanceKey?: string;
  type?: string;
  traceId?: string;
  after?: number;
}

const watchQuery = requestSchema<WatchQuery>({
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
      after: { type: "integer", minimum: 0 },
    },
  },
});

/** Whether `event` passes the watch's filters. */
export function matchesWatch(query: WatchQuery, event: RuntimeEvent): boolean {
  return (
    (query.agent === undefined || event.agent === query.agent) &&
    (query.instanceKey === undefined || event.instanceKey === query.instanceKey) &&
    (query.traceId === undefined || event.traceId === query.traceId) &&
    (query.type === undefined || event.type.startsWith(query.type))
  );
}

export function watchRoutes(options: { backend: ApiBackend; heartbeatMs?: number }): Hono<ApiEnv> {
  const { backend } = options;
  return new Hono<ApiEnv>().get(
    "/v1/watch",
    validator("query", (value) => watchQuery(value)),
    (c) => {
      const query = c.req.valid("query");
      return sseResponse({
        c,
        ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
        run: async (writer) => {
          const send = (event: RuntimeEvent) => {
            if (matchesWatch(query, event)) writer.send({ event: "runtime", data: event });
          };
          // Live events are held while the stored ones are read, then those already replayed are skipped.
          let held: RuntimeEvent[] | undefined = query.after === undefined ? undefined : [];
          const stop = backend.watch((events) => {
            if (held !== undefined) held.push(...events);
            else for (const event of events) send(event);
          });
          try {
            if (query.after !== undefined) {
              const stored = await backend.runtimeEvents({
                after: query.after,
                ...(query.agent === undefined ? {} : { agent: query.agent }),
                ...(query.instanceKey === undefined ? {} : { instanceKey: query.instanceKey }),
                ...(query.traceId === undefined ? {} : { traceId: query.traceId }),
              });
              const replayed = new Set(stored.map((row) => JSON.stringify(row.event)));
              for (const row of stored) send(row.event);
              const late = held ?? [];
              held = undefined;
              for (const event of late) if (!replayed.has(JSON.stringify(event))) send(event);
            }
            await writer.closed;
          } finally {
            stop();
          }
        },
      });
    },
  );
}
