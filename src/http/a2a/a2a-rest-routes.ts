/**
 * A2A's HTTP+JSON binding under `/v1/a2a/rest` (the SDK serves it only through Express, so it is mapped here onto the
 * same JSON-RPC transport handler, task table and executor as `POST /v1/a2a`): `POST message:send` and
 * `message:stream` (server-sent events of StreamResponse, each with an id), `GET tasks/{id}` (`historyLength`),
 * `GET tasks` (ListTasks' query: `contextId`, `status`, `pageSize`, `pageToken`, …), `POST tasks/{id}:cancel`,
 * `GET|POST tasks/{id}:subscribe`; a stream asked again with `Last-Event-ID` is resumed from the store (a2a-sse.ts).
 * Answers are the method's result as the JSON-RPC binding gives it; errors are
 * A2A's REST shape `{error: {code, status, message, details}}` with the HTTP status of the A2A error (404 task not
 * found, 409 not cancelable, 400 push notifications and bad parameters, …), the ErrorInfo details naming its reason.
 */
import { Hono, type Context } from "hono";
import { validator } from "hono/validator";
import { JsonRpcTransportHandler } from "@a2a-js/sdk/server";
import type { ApiEnv } from "../api-env.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { requestSchema } from "../request-schema.ts";
import { noQuery } from "../routes/no-query.ts";
import type { a2aSse } from "./a2a-sse.ts";
import { A2A_REST_PATH } from "./agent-card.ts";

type Call = (
  method: string,
  params: Record<string, unknown>,
  c: Context<ApiEnv>,
) => ReturnType<JsonRpcTransportHandler["handle"]>;

/** HTTP status and google.rpc status name of each JSON-RPC error code (A2A spec, HTTP+JSON error mapping). */
const STATUS_OF: Record<number, [number, string]> = {
  [-32700]: [400, "INVALID_ARGUMENT"],
  [-32600]: [400, "INVALID_ARGUMENT"],
  [-32601]: [404, "NOT_FOUND"],
  [-32602]: [400, "INVALID_ARGUMENT"],
  [-32603]: [500, "INTERNAL"],
  [-32001]: [404, "NOT_FOUND"],
  [-32002]: [409, "FAILED_PRECONDITION"],
  [-32003]: [400, "UNIMPLEMENTED"],
  [-32004]: [400, "UNIMPLEMENTED"],
  [-32005]: [415, "INVALID_ARGUMENT"],
  [-32006]: [502, "INTERNAL"],
};

interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A2A's REST error body for a JSON-RPC error, and its HTTP status. */
function restErrorBody(error: RpcError): { status: number; body: { error: Record<string, unknown> } } {
  const [status, name] = STATUS_OF[error.code] ?? [500, "INTERNAL"];
  const details = Array.isArray(error.data) ? error.data : [];
  return { status, body: { error: { code: status, status: name, message: error.message, details } } };
}

function restError(c: Context<ApiEnv>, error: RpcError): Response {
  const { status, body } = restErrorBody(error);
  return c.json(body, status as 400);
}

const TASK = { type: "string", minLength: 1, maxLength: 300 };
const taskPath = (route: string) =>
  requestSchema<{ task: string }>({
    route,
    part: "path",
    schema: { type: "object", required: ["task"], additionalProperties: false, properties: { task: TASK } },
  });
const anyBody = (route: string) =>
  requestSchema<Record<string, unknown>>({ route, part: "body", schema: { type: "object" } });
const listQuery = requestSchema<Record<string, string>>({
  route: `GET ${A2A_REST_PATH}/tasks`,
  part: "query",
  schema: {
    type: "object",
    additionalProperties: false,
    properties: Object.fromEntries(
      [
        "contextId",
        "status",
        "pageSize",
        "pageToken",
        "historyLength",
        "statusTimestampAfter",
        "includeArtifacts",
        "tenant",
      ].map((name) => [name, { type: "string", maxLength: 300 }]),
    ),
  },
});
const getQuery = requestSchema<{ historyLength?: string }>({
  route: `GET ${A2A_REST_PATH}/tasks/:task`,
  part: "query",
  schema: {
    type: "object",
    additionalProperties: false,
    properties: { historyLength: { type: "string", pattern: "^\\d{1,6}$" }, tenant: { type: "string" } },
  },
});
const numeric = new Set(["pageSize", "historyLength"]);

export function a2aRestRoutes(options: { call: Call; sse: ReturnType<typeof a2aSse>; maxBodyBytes: number }) {
  const { call, sse } = options;
  const frame = (result: unknown) => result;

  /** One JSON answer: the method's result, or the REST error. */
  const answer = async (c: Context<ApiEnv>, method: string, params: Record<string, unknown>) => {
    const result = (await call(method, params, c)) as { result?: unknown; error?: RpcError };
    if (Symbol.asyncIterator in result) throw new Error(`${method} answered a stream`);
    return result.error ? restError(c, result.error) : c.json(result.result as object);
  };

  /** A streamed answer: each StreamResponse as an SSE message with an id; a failure before the first is a REST error. */
  const stream = async (c: Context<ApiEnv>, method: string, params: Record<string, unknown>) => {
    // A client that lost the stream asks again with the last id: the messages past it (a2a-sse.ts).
    const lastEventId = c.req.header("last-event-id");
    if (lastEventId !== undefined && lastEventId !== "") {
      const resumed = await sse.resume(c, lastEventId, frame);
      return typeof resumed === "string" ? restError(c, { code: -32001, message: resumed }) : resumed;
    }
    if (method === "SubscribeToTask" && typeof params.id === "string") {
      const stored = await sse.subscribe(c, params.id, frame);
      if (stored !== undefined) return stored;
    }
    const result = await call(method, params, c);
    if (!(Symbol.asyncIterator in result)) {
      const error = (result as { error?: RpcError }).error;
      return error ? restError(c, error) : c.json((result as { result?: object }).result ?? {});
    }
    const iterator = result[Symbol.asyncIterator]();
    let first: IteratorResult<unknown>;
    try {
      first = await iterator.next();
    } catch (error) {
      return restError(c, JsonRpcTransportHandler.mapToJSONRPCError(error) as RpcError);
    }
    const firstError = (first.value as { error?: RpcError } | undefined)?.error;
    if (firstError) return restError(c, firstError);
    return sse.live(
      c,
      first,
      iterator,
      (value) => {
        const envelope = value as { result?: unknown; error?: RpcError };
        return envelope.error === undefined
          ? { result: envelope.result }
          : { error: restErrorBody(envelope.error).body, event: "error" };
      },
      frame,
      (error) => restErrorBody(JsonRpcTransportHandler.mapToJSONRPCError(error) as RpcError).body,
    );
  };

  /** `tasks/{id}:cancel`, `tasks/{id}:subscribe` or `tasks/{id}`: the id and what is asked of it. */
  const taskAction = (segment: string): { id: string; action: "cancel" | "subscribe" | "get" } => {
    const match = /^(.*):(cancel|subscribe)$/.exec(segment);
    return match
      ? { id: match[1] as string, action: match[2] as "cancel" | "subscribe" }
      : { id: segment, action: "get" };
  };
  const notFound = (c: Context<ApiEnv>, what: string) =>
    restError(c, { code: -32601, message: `no A2A REST method ${what}` });

  const send = `POST ${A2A_REST_PATH}/message:send`;
  const streamRoute = `POST ${A2A_REST_PATH}/message:stream`;
  const taskGet = `GET ${A2A_REST_PATH}/tasks/:task`;
  const taskPost = `POST ${A2A_REST_PATH}/tasks/:task`;
  const body = (route: string) => jsonBody({ maxBytes: options.maxBodyBytes, check: anyBody(route) });
  const postedTask = taskPath(taskPost);
  const gotTask = taskPath(taskGet);

  return new Hono<ApiEnv>()
    .post(`${A2A_REST_PATH}/message:send`, noQuery(send), body(send), (c) =>
      answer(c, "SendMessage", c.var.body as Record<string, unknown>),
    )
    .post(`${A2A_REST_PATH}/message:stream`, noQuery(streamRoute), body(streamRoute), (c) =>
      stream(c, "SendStreamingMessage", c.var.body as Record<string, unknown>),
    )
    .get(
      `${A2A_REST_PATH}/tasks`,
      validator("query", (value) => listQuery(value)),
      (c) => {
        const query = c.req.valid("query");
        const params: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(query))
          params[name] = numeric.has(name) ? Number(value) : name === "includeArtifacts" ? value === "true" : value;
        return answer(c, "ListTasks", params);
      },
    )
    .get(
      `${A2A_REST_PATH}/tasks/:task`,
      validator("param", (value) => gotTask(value)),
      validator("query", (value) => getQuery(value)),
      (c) => {
        const { id, action } = taskAction(c.req.valid("param").task);
        if (action === "subscribe") return stream(c, "SubscribeToTask", { id });
        if (action === "cancel") return notFound(c, `GET tasks/${id}:cancel (POST it)`);
        const { historyLength } = c.req.valid("query");
        return answer(c, "GetTask", {
          id,
          ...(historyLength === undefined ? {} : { historyLength: Number(historyLength) }),
        });
      },
    )
    .post(
      `${A2A_REST_PATH}/tasks/:task`,
      noQuery(taskPost),
      validator("param", (value) => postedTask(value)),
      (c) => {
        const { id, action } = taskAction(c.req.valid("param").task);
        if (action === "cancel") return answer(c, "CancelTask", { id });
        if (action === "subscribe") return stream(c, "SubscribeToTask", { id });
        return notFound(c, `POST tasks/${id}`);
      },
    );
}
