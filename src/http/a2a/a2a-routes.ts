/**
 * The A2A v1.0 surface (docs/interop.md), on the official `@a2a-js/sdk` server: the agent card at
 * `/.well-known/agent-card.json` (agent-card.ts), its HTTP+JSON binding under `/v1/a2a/rest` (a2a-rest-routes.ts)
 * and its JSON-RPC binding at `POST /v1/a2a` (SendMessage,
 * SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask), the SDK's request handler running the
 * swarm executor (swarm-executor.ts) over its task table, which the store backs (stored-task-store.ts: a task is an
 * accepted event, read back after a restart). Streaming answers are server-sent events of JSON-RPC responses;
 * errors are JSON-RPC errors (the SDK's typed A2A errors, push notifications answering
 * PushNotificationNotSupportedError; the shared checks' refusals through a2a-error.ts). Every message of a stream has
 * the id `<task id>:<cursor>.<n>`, a stored position; the same request posted again with `Last-Event-ID` gets the
 * messages past it, then the new ones, none twice, without handling the request again, after a restart too
 * (a2a-sse.ts); an id naming no task is A2A's TaskNotFoundError (-32001).
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
import { A2A_PATH, agentCard } from "./agent-card.ts";
import { a2aSse } from "./a2a-sse.ts";
import { StoredTaskStore } from "./stored-task-store.ts";
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
  const cardFor = (origin: string) => agentCard({ swarm: backend.orchestrator.swarm, origin, token: options.token });
  const executor = new SwarmExecutor(backend);
  const running = (taskId: string) => executor.running(taskId);
  const tasks = new StoredTaskStore({ backend, running });
  const handler = new DefaultRequestHandler(cardFor("http://127.0.0.1"), tasks, executor);
  const transport = new JsonRpcTransportHandler(handler);
  const contextOf = (c: Context<ApiEnv>) =>
    defaultServerCallContextBuilder({
      extensions: undefined,
      user: new UnauthenticatedUser(),
      headers: Object.fromEntries(c.req.raw.headers),
      ...(c.req.header(A2A_VERSION_HEADER) ? { requestedVersion: c.req.header(A2A_VERSION_HEADER) } : {}),
    });
  const sse = a2aSse({
    backend,
    running,
    loadTask: (taskId, c) => tasks.load(taskId, contextOf(c)),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  });
  // The HTTP+JSON binding calls the same handler through JSON-RPC envelopes (a2a-rest-routes.ts).
  const rest = a2aRestRoutes({
    sse,
    maxBodyBytes: options.maxBodyBytes,
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
        const frame = (result: unknown) => ({ jsonrpc: "2.0", id: requestId, result });
        const lastEventId = c.req.header("last-event-id");
        if (lastEventId !== undefined && lastEventId !== "") {
          const resumed = await sse.resume(c, lastEventId, frame);
          if (typeof resumed !== "string") return resumed;
          return c.json({ jsonrpc: "2.0", id: requestId, error: { code: -32001, message: resumed } });
        }
        let answer: Awaited<ReturnType<JsonRpcTransportHandler["handle"]>>;
        try {
          validateVersion(context.requestedVersion, await handler.getAgentCard(), "JSONRPC");
          const subscribed = (body.params as { id?: unknown } | undefined)?.id;
          if (body.method === "SubscribeToTask" && typeof subscribed === "string") {
            const stored = await sse.subscribe(c, subscribed, frame);
            if (stored !== undefined) return stored;
          }
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
        return sse.live(
          c,
          first,
          iterator,
          (value) => {
            const envelope = value as { result?: unknown; error?: unknown };
            return envelope.error === undefined ? { result: envelope.result } : { error: value };
          },
          frame,
          failure,
        );
      },
    );
}
