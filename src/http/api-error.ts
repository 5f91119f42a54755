/**
 * The one way the HTTP API answers a failure: `{error: {code, message, suggestion?}}` (an ErrorInfo) with a
 * 4xx/5xx status and JSON content type, plus route-specific fields beside `error` (the `eventId` of a timed-out
 * wait, the `issues` of a refused restart). ApiError is what middleware and routes throw; errorResponse turns
 * anything thrown into that answer, and never lets a stack trace or an internal message out.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { errorInfo, type ErrorInfo } from "../protocol/error-info.ts";
import { describe, isGoondanError, UsageError } from "../shared/errors.ts";
import type { JsonObject } from "../shared/json.ts";
import type { Logger } from "../shared/logger.ts";
import { STORE_CORRUPT, STORE_RETRY_AFTER_SECONDS, STORE_UNAVAILABLE } from "../store/store-fault.ts";

/** A request the API refuses, with the status to answer, fields to add beside `error`, and headers (`Allow`). */
export class ApiError extends UsageError {
  readonly status: ContentfulStatusCode;
  readonly extra: JsonObject;
  readonly headers: Record<string, string>;

  constructor(options: {
    status: ContentfulStatusCode;
    code: string;
    message: string;
    suggestion?: string;
    extra?: JsonObject;
    headers?: Record<string, string>;
  }) {
    super(options.code, options.message, options.suggestion === undefined ? {} : { suggestion: options.suggestion });
    this.status = options.status;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }
}

/** The statuses of coded errors that the orchestrator throws at a caller (everything else of blame "usage" is 400). */
const STATUS_OF_CODE: Record<string, ContentfulStatusCode> = {
  E_AGENT_NOT_FOUND: 404,
  E_ORCHESTRATOR_STOPPING: 503,
  E_CLUSTER_UNAVAILABLE: 503,
  [STORE_UNAVAILABLE]: 503,
  [STORE_CORRUPT]: 503,
};

/** Headers of coded answers: a store that cannot write now tells the client when to send again. */
function headersOfCode(code: string): Record<string, string> {
  return code === STORE_UNAVAILABLE || code === "E_CLUSTER_UNAVAILABLE"
    ? { "retry-after": String(STORE_RETRY_AFTER_SECONDS) }
    : {};
}

/** A JSON answer; the API's only way to write one. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** `{error, ...extra}` with `status`. */
export function errorBody(options: {
  status: number;
  error: ErrorInfo;
  extra?: JsonObject;
  headers?: Record<string, string>;
}): Response {
  return jsonResponse(options.status, { error: errorInfo(options.error), ...options.extra }, options.headers);
}

/**
 * The answer for anything a route or middleware threw: an ApiError as it says, a caller's coded error (blame
 * "usage") as 400 or its mapped status (a store fault: 503, with Retry-After when it passes), and anything else as a
 * logged `500 E_INTERNAL` that says nothing more.
 */
export function errorResponse(options: { error: unknown; logger: Logger; method: string; path: string }): Response {
  const { error } = options;
  if (error instanceof ApiError) {
    return errorBody({
      status: error.status,
      error: {
        code: error.code,
        message: error.message,
        ...(error.suggestion ? { suggestion: error.suggestion } : {}),
      },
      extra: error.extra,
      headers: error.headers,
    });
  }
  if (isGoondanError(error) && (error.blame === "usage" || STATUS_OF_CODE[error.code] !== undefined)) {
    return errorBody({
      status: STATUS_OF_CODE[error.code] ?? 400,
      error: {
        code: error.code,
        message: error.message,
        ...(error.suggestion ? { suggestion: error.suggestion } : {}),
      },
      headers: headersOfCode(error.code),
    });
  }
  options.logger.error(
    { error: describe(error), method: options.method, path: options.path },
    "http api request failed",
  );
  return errorBody({ status: 500, error: { code: "E_INTERNAL", message: "internal error" } });
}
