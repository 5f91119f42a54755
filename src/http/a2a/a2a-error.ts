/**
 * JSON-RPC's error shape for the A2A endpoint: what the shared checks refuse there (the token, origin, media type,
 * body size, JSON, the envelope's schema) is answered `{jsonrpc: "2.0", id: null, error: {code, message, data}}`,
 * keeping the HTTP status: -32700 for a body that is not JSON, -32600 (invalid request) for the others, -32603 for a
 * failure of ours. The goondan code is in `data[0].reason`.
 */
import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "../api-env.ts";

export function jsonRpcErrorCode(goondanCode: string, status: number): number {
  if (goondanCode === "E_API_BAD_JSON") return -32700;
  return status >= 500 ? -32603 : -32600;
}

export const jsonRpcErrors: MiddlewareHandler<ApiEnv> = async (c, next) => {
  await next();
  const status = c.res.status;
  if (status < 400 || !c.res.headers.get("content-type")?.startsWith("application/json")) return;
  const body = (await c.res.clone().json()) as { jsonrpc?: string; error?: { code?: string; message?: string } };
  if (body.jsonrpc !== undefined || body.error === undefined) return;
  const code = body.error.code ?? "E_INTERNAL";
  const reshaped = {
    jsonrpc: "2.0",
    id: null,
    error: {
      code: jsonRpcErrorCode(code, status),
      message: body.error.message ?? "error",
      data: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: code, domain: "goondan.ai" }],
    },
  };
  c.res = new Response(JSON.stringify(reshaped), { status, headers: c.res.headers });
};

/** google.rpc status names of the HTTP statuses the shared checks answer with. */
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  405: "UNIMPLEMENTED",
  413: "INVALID_ARGUMENT",
  415: "INVALID_ARGUMENT",
  503: "UNAVAILABLE",
};

/**
 * A2A's HTTP+JSON error shape for the REST binding: what the shared checks refuse there is answered
 * `{error: {code: <HTTP status>, status, message, details: [ErrorInfo with goondan's code as reason]}}`.
 */
export const restErrors: MiddlewareHandler<ApiEnv> = async (c, next) => {
  await next();
  const status = c.res.status;
  if (status < 400 || !c.res.headers.get("content-type")?.startsWith("application/json")) return;
  const body = (await c.res.clone().json()) as { error?: { code?: unknown; message?: string } };
  if (body.error === undefined || typeof body.error.code !== "string") return;
  const reshaped = {
    error: {
      code: status,
      status: STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT"),
      message: body.error.message ?? "error",
      details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: body.error.code, domain: "goondan.ai" }],
    },
  };
  c.res = new Response(JSON.stringify(reshaped), { status, headers: c.res.headers });
};
