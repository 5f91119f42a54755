/**
 * The A2A v1.0 surface (docs/interop.md), on the official `@a2a-js/sdk` server: the agent card at
 * `/.well-known/agent-card.json` (agent-card.ts), its HTTP+JSON binding under `/v1/a2a/rest` (a2a-rest-routes.ts)
 * and its JSON-RPC binding at `POST /v1/a2a` (SendMessage,
 * SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask), the SDK's request handler running the
 * swarm executor (swarm-executor.ts) over its in-memory task table (bounded-task-store.ts). Streaming answers are server-sent events of
 * JSON-RPC responses; errors are JSON-RPC errors (the SDK's typed A2A errors, push notifications answering
 * PushNotificationNotSupportedError; the shared checks' refusals through a2a-error.ts). Every message of a stream has
 * the id `<stream>:<number>`; the same request posted again with `Last-Event-ID` gets the messages after it, then the
 * live ones, none twice, without handling the request again (sse-replay-log.ts). The streams are kept in memory like
 * the task table: after a restart such an id is A2A's TaskNotFoundError (-32001), and SubscribeToTask gives a task's
 * current state.
 */
import { A2A_VERSION_HEADER, AgentCard } from "@a2a-js/sdk";
import {
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  validateVersion,
} from "@a2a-js/sdk/server";
import { type Context, Hono } from "hono";
import type { ApiBackend } from "../api-backend.ts";
import type { ApiEnv } from "../api-env.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { requestSchema } from "../request-schema.ts";
import { noQuery } from "../routes/no-query.ts";
import { sseResponse } from "../sse-stream.ts";
import { keyedId, SseReplayLog } from "../sse-replay-log.ts";
import { A2A_PATH, agentCard } from "./agent-card.ts";
import { BoundedTaskStore } from "./bounded-task-store.ts";
import { a2aRestRoutes } from "./a2a-rest-routes.ts";
import { SwarmExecutor } from "./swarm-executor.ts";

/** The paths this surface answers on: http-api.ts gives `/v1/a2a` JSON-RPC's error shape before any check runs. */
export const A2A_PATHS = [A2A_PATH] as const;

const envelope = requestSchema<Record<string, unknown>>({
  route: `POST ${A2A_PATH}`,
  part: "body",
  schema: {
    type: "object",
    required: ["jsonrpc", "method"],
    properties: {
      jsonrpc: { const: "2.0" },
      method: { type: "string", minLength: 1, maxLength: 200 },
      id: { anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] },
      params: { type: "object" },
    },
  },
});

export function a2aRoutes(options: {
  backend: ApiBackend;
  maxBodyBytes: number;
  token: boolean;
  heartbeatMs?: number;
}) {
  const { backend } = options;
  const log = new SseReplayLog();
  const cardFor = (origin: string) => agentCard({ swarm: backend.orchestrator.swarm, origin, token: options.token });
  const handler = new DefaultRequestHandler(
    cardFor("http://127.0.0.1"),
    new BoundedTaskStore(),
    new SwarmExecutor(backend),
  );
  const transport = new JsonRpcTransportHandler(handler);
  const contextOf = (c: Context<ApiEnv>) =>
    defaultServerCallContextBuilder({
      extensions: undefined,
      user: new UnauthenticatedUser(),
      headers: Object.fromEntries(c.req.raw.headers),
      ...(c.req.header(A2A_VERSION_HEADER) ? { requestedVersion: c.req.header(A2A_VERSION_HEADER) } : {}),
    });
  // The HTTP+JSON binding calls the same handler through JSON-RPC envelopes (a2a-rest-routes.ts).
  const rest = a2aRestRoutes({
    log,
    maxBodyBytes: options.maxBodyBytes,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    call: async (method, params, c) => {
      const context = contextOf(c);
      try {
        validateVersion(context.requestedVersion, await handler.getAgentCard(), "HTTP+JSON");
      } catch (error) {
        return { jsonrpc: "2.0", id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) } as never;
      }
      return transport.handle({ jsonrpc: "2.0", id: 1, method, params }, context);
    },
  });

  return new Hono<ApiEnv>()
    .route("/", rest)
    .get("/.well-known/agent-card.json", noQuery("GET /.well-known/agent-card.json"), (c) =>
      c.json(AgentCard.toJSON(cardFor(new URL(c.req.url).origin)) as object),
    )
    .post(
      A2A_PATH,
      noQuery(`POST ${A2A_PATH}`),
      jsonBody({ maxBytes: options.maxBodyBytes, check: envelope }),
      async (c) => {
        const body = c.var.body as Record<string, unknown>;
        const requestId = (body.id ?? null) as string | number | null;
        const context = contextOf(c);
        const failure = (error: unknown) => ({
          jsonrpc: "2.0",
          id: requestId,
          error: JsonRpcTransportHandler.mapToJSONRPCError(error),
        });
        const heartbeat = options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs };
        const lastEventId = c.req.header("last-event-id");
        if (lastEventId !== undefined && lastEventId !== "") {
          const id = keyedId(lastEventId);
          const kept = id === undefined ? undefined : log.get(id.key);
          if (id === undefined || kept === undefined)
            return c.json({
              jsonrpc: "2.0",
              id: requestId,
              error: {
                code: -32001,
                message: `no A2A stream to resume after Last-Event-ID ${JSON.stringify(lastEventId.slice(0, 100))} (streams are kept in memory); SubscribeToTask gives the task's current state`,
              },
            });
          return sseResponse({ c, ...heartbeat, run: (writer) => kept.replay(id.number, writer) });
        }
        let answer: Awaited<ReturnType<JsonRpcTransportHandler["handle"]>>;
        try {
          validateVersion(context.requestedVersion, await handler.getAgentCard(), "JSONRPC");
          answer = await transport.handle(body, context);
        } catch (error) {
          return c.json(failure(error));
        }
        if (!(Symbol.asyncIterator in answer)) return c.json(answer);
        const iterator = answer[Symbol.asyncIterator]();
        let first: IteratorResult<unknown>;
        try {
          first = await iterator.next();
        } catch (error) {
          return c.json(failure(error));
        }
        const key = `a2a-${crypto.randomUUID()}`;
        const record = log.open(key, `${key}:`);
        return sseResponse({
          c,
          ...heartbeat,
          run: async (client) => {
            const writer = record.recording(client);
            try {
              for (let next = first; !next.done; next = await iterator.next()) writer.send({ data: next.value });
            } catch (error) {
              writer.send({ event: "error", data: failure(error) });
            } finally {
              record.end();
            }
          },
        });
      },
    );
}
