/**
 * OpenAI's error shape for the OpenAI-compatible routes: `{error: {message, type, param, code}}` with the same
 * status. A middleware placed before every other one on those paths, so what the Host, Origin, token and body checks
 * refuse there is reshaped too: it takes the API's one error answer (api-error.ts) and rewrites its body, keeping
 * the status and headers (`Allow`, CORS). `type` follows OpenAI's: `invalid_request_error` for 4xx (with
 * `authentication_error` for 401 and `permission_error` for 403), `server_error` for 5xx.
 */
import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "../api-env.ts";

export function openAiErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  return status >= 500 ? "server_error" : "invalid_request_error";
}

/** `{error: {message, type, param, code}}`, with the extra fields (an `eventId`) kept beside `error`. */
export function openAiErrorBody(options: {
  status: number;
  code: string;
  message: string;
  extra?: Record<string, unknown>;
}): Record<string, unknown> {
  return {
    error: { message: options.message, type: openAiErrorType(options.status), param: null, code: options.code },
    ...options.extra,
  };
}

export const openAiErrors: MiddlewareHandler<ApiEnv> = async (c, next) => {
  await next();
  const status = c.res.status;
  if (status < 400 || !c.res.headers.get("content-type")?.startsWith("application/json")) return;
  const body = (await c.res.clone().json()) as {
    error?: { code?: string; message?: string; suggestion?: string; type?: string };
  };
  if (body.error === undefined || body.error.type !== undefined) return;
  const { error, ...extra } = body;
  const reshaped = openAiErrorBody({
    status,
    code: error.code ?? "E_INTERNAL",
    message: `${error.message ?? "error"}${error.suggestion ? ` (${error.suggestion})` : ""}`,
    extra,
  });
  c.res = new Response(JSON.stringify(reshaped), { status, headers: c.res.headers });
};
