/**
 * Sorts a failed model call into a stable E_MODEL_* code, and says whether retrying can help: 429, 5xx, network
 * failures and a call past its deadline (E_MODEL_TIMEOUT) are retryable; other 4xx (auth, bad request),
 * malformed responses and replay mismatches are not. `retryAfterMs` reads `retry-after-ms` / `retry-after`
 * (seconds or HTTP date) when the server sent one.
 */
import { APICallError } from "ai";
import { isGoondanError } from "../../shared/errors.ts";
import { ModelCallTimeoutError } from "./model-call-timeout.ts";

export interface ModelFailure {
  code: string;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  statusCode?: number;
}

function retryAfter(headers: Record<string, string> | undefined, now: number): number | undefined {
  if (headers === undefined) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  const ms = Number(lower["retry-after-ms"]);
  if (lower["retry-after-ms"] !== undefined && Number.isFinite(ms)) return Math.max(0, ms);
  const raw = lower["retry-after"];
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function classifyModelError(error: unknown, now: number = Date.now()): ModelFailure {
  // Our per-call deadline (not the turn's abort): a hung connection, worth another try.
  if (error instanceof ModelCallTimeoutError)
    return { code: "E_MODEL_TIMEOUT", message: error.message, retryable: true };
  if (isGoondanError(error)) return { code: error.code, message: error.message, retryable: false };
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const base = {
      message: `model API call failed${status === undefined ? "" : ` with HTTP ${status}`}: ${error.message}`.slice(
        0,
        2000,
      ),
    };
    const after = retryAfter(error.responseHeaders, now);
    const withAfter = after === undefined ? {} : { retryAfterMs: after };
    if (status === undefined) return { code: "E_MODEL_NETWORK_ERROR", retryable: true, ...base };
    if (status >= 200 && status < 300)
      return {
        code: "E_MODEL_INVALID_RESPONSE",
        retryable: false,
        statusCode: status,
        message: `the model returned a response that could not be read: ${error.message}`.slice(0, 2000),
      };
    if (status === 429)
      return { code: "E_MODEL_RATE_LIMITED", retryable: true, statusCode: status, ...withAfter, ...base };
    if (status >= 500)
      return { code: "E_MODEL_SERVER_ERROR", retryable: true, statusCode: status, ...withAfter, ...base };
    if (status === 401 || status === 403)
      return { code: "E_MODEL_AUTH_FAILED", retryable: false, statusCode: status, ...base };
    if (status === 408) return { code: "E_MODEL_TIMEOUT", retryable: true, statusCode: status, ...base };
    return { code: "E_MODEL_REQUEST_REJECTED", retryable: false, statusCode: status, ...base };
  }
  const name = error instanceof Error ? error.name : "";
  const message = error instanceof Error ? error.message : String(error);
  if (/LoadAPIKeyError/.test(name)) return { code: "E_MODEL_API_KEY_MISSING", message, retryable: false };
  if (name === "AbortError" || name === "TimeoutError")
    return { code: "E_MODEL_ABORTED", message: `model call aborted: ${message}`, retryable: false };
  if (
    /JSONParseError|TypeValidationError|InvalidResponseDataError|EmptyResponseBodyError|NoContentGeneratedError/.test(
      name,
    ) ||
    /AI_(JSONParse|TypeValidation|InvalidResponseData)/.test(name)
  ) {
    return {
      code: "E_MODEL_INVALID_RESPONSE",
      message: `the model returned a response that could not be read: ${message}`.slice(0, 2000),
      retryable: false,
    };
  }
  if (error instanceof TypeError && /fetch|connect|network/i.test(message))
    return { code: "E_MODEL_NETWORK_ERROR", message, retryable: true };
  return { code: "E_MODEL_CALL_FAILED", message: `${name || "Error"}: ${message}`.slice(0, 2000), retryable: false };
}
