/**
 * What of a runtime event may leave the agent child that made it: every string in its `data` and its error message
 * with the child's secret values redacted (redact-secrets.ts), and each `data` field bounded to `maxBytes` of JSON
 * (tool arguments and results, a model's output), so a 10 MB tool result neither crosses the instance link nor lands
 * in the runtime-event store, the trace endpoints or a stream. A field over the bound becomes a TruncatedValue: the
 * first `maxBytes` of its JSON, marked, with the size it had.
 */
import { redactJson, redactSecrets } from "../shared/redact-secrets.ts";
import type { JsonObject, JsonValue } from "../shared/json.ts";
import type { RuntimeEvent } from "./runtime-event.ts";

/** The bound of one `data` field: 4 KiB of JSON. */
export const MAX_DATA_FIELD_BYTES = 4096;

/** A value cut to its first bytes of JSON (`preview`), marked so no reader takes it for the value itself. */
export interface TruncatedValue {
  truncated: true;
  /** The size of the whole value's JSON, in bytes. */
  bytes: number;
  preview: string;
}

/** `value`, or its TruncatedValue when its JSON is over `maxBytes`. */
export function boundedValue(value: JsonValue, maxBytes = MAX_DATA_FIELD_BYTES): JsonValue {
  return boundedJson(value, JSON.stringify(value), maxBytes);
}

/** boundedValue for a value whose JSON (`json`) is already made. */
function boundedJson(value: JsonValue, json: string | undefined, maxBytes: number): JsonValue {
  if (json === undefined) return null;
  // A UTF-16 unit is at most 3 bytes of UTF-8: most fields are known to fit without encoding them.
  if (json.length * 3 <= maxBytes) return value;
  const encoded = new TextEncoder().encode(json);
  const bytes = encoded.length;
  if (bytes <= maxBytes) return value;
  // Cut at a character boundary at or below maxBytes.
  const preview = new TextDecoder().decode(encoded.subarray(0, maxBytes)).replace(/\uFFFD$/, "");
  const truncated: TruncatedValue = { truncated: true, bytes, preview: `${preview}…` };
  return truncated as unknown as JsonValue;
}

/**
 * Whether `json` (a value's JSON text) may hold one of `secrets`. A secret that JSON writes as itself (no quote,
 * backslash, control character or surrogate) is in the value only if it is in the text; any other is assumed present, so the
 * value is walked (redactJson).
 */
function mayHoldSecret(json: string, secrets: readonly string[]): boolean {
  for (const secret of secrets) {
    if (secret === "") continue;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes exactly these.
    if (/["\\\u0000-\u001f\ud800-\udfff]/.test(secret) || json.includes(secret)) return true;
  }
  return false;
}

/**
 * One `data` field as it may leave: redacted, then bounded. Its JSON is made once; the value is walked for secrets
 * only when that text holds one (most fields: no secret, no copy).
 */
function publicField(value: JsonValue, secrets: readonly string[], maxBytes: number): JsonValue {
  const json = JSON.stringify(value);
  if (json === undefined || secrets.length === 0 || !mayHoldSecret(json, secrets))
    return boundedJson(value, json, maxBytes);
  const clean = redactJson(value, secrets);
  return boundedJson(clean, JSON.stringify(clean), maxBytes);
}

export function publicRuntimeEvent<E extends Pick<RuntimeEvent, "data" | "error">>(
  event: E,
  options: { secrets: readonly string[]; maxBytes?: number },
): E {
  const { secrets } = options;
  if (event.data === undefined && (event.error === undefined || secrets.length === 0)) return event;
  const maxBytes = options.maxBytes ?? MAX_DATA_FIELD_BYTES;
  let data: JsonObject | undefined;
  if (event.data !== undefined) {
    data = {};
    for (const key in event.data) {
      const value = event.data[key] as JsonValue;
      data[secrets.length === 0 ? key : redactSecrets(key, secrets)] = publicField(value, secrets, maxBytes);
    }
  }
  return {
    ...event,
    ...(data === undefined ? {} : { data }),
    ...(event.error === undefined
      ? {}
      : { error: { ...event.error, message: redactSecrets(event.error.message, secrets) } }),
  };
}
