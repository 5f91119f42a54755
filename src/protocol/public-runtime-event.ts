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
  const json = JSON.stringify(value);
  if (json === undefined) return null;
  const encoded = new TextEncoder().encode(json);
  const bytes = encoded.length;
  if (bytes <= maxBytes) return value;
  // Cut at a character boundary at or below maxBytes.
  const preview = new TextDecoder().decode(encoded.subarray(0, maxBytes)).replace(/\uFFFD$/, "");
  const truncated: TruncatedValue = { truncated: true, bytes, preview: `${preview}…` };
  return truncated as unknown as JsonValue;
}

export function publicRuntimeEvent<E extends Pick<RuntimeEvent, "data" | "error">>(
  event: E,
  options: { secrets: readonly string[]; maxBytes?: number },
): E {
  const { secrets } = options;
  if (event.data === undefined && (event.error === undefined || secrets.length === 0)) return event;
  const data =
    event.data === undefined
      ? undefined
      : (Object.fromEntries(
          Object.entries(redactJson(event.data, secrets) as JsonObject).map(([key, value]) => [
            key,
            boundedValue(value, options.maxBytes),
          ]),
        ) as JsonObject);
  return {
    ...event,
    ...(data === undefined ? {} : { data }),
    ...(event.error === undefined
      ? {}
      : { error: { ...event.error, message: redactSecrets(event.error.message, secrets) } }),
  };
}
