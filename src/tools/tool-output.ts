/**
 * Turns whatever a handler returned into JSON the model can read, and caps its size.
 * Converted: undefined → null (dropped as an object property), Date → ISO string, BigInt → string,
 * NaN/±Infinity → null, Map → object, Set and typed arrays → arrays, Error → {name, message, code?},
 * objects with toJSON() → its result. Refused with a clear message: functions, symbols, circular
 * references, nesting deeper than 256 levels. Output larger than the cap (256 KiB of JSON) is cut to fit:
 * a string keeps its head plus `... (truncated: N bytes in all)`, anything else becomes a truncation marker
 * holding a preview; N is the original's JSON size.
 */
import type { JsonObject, JsonValue } from "../shared/json.ts";

export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;
export const MAX_OUTPUT_DEPTH = 256;

export type JsonOutput = { ok: true; value: JsonValue } | { ok: false; message: string };

class NotJson extends Error {}

/** Converts a handler's return value to JSON and applies the size cap. Never throws. */
export function toJsonOutput(value: unknown, options: { maxBytes?: number } = {}): JsonOutput {
  let json: JsonValue;
  try {
    json = convert(value, "$", 0, new Set());
  } catch (error) {
    if (error instanceof NotJson) return { ok: false, message: error.message };
    return { ok: false, message: `the tool output could not be converted to JSON: ${safeMessage(error)}` };
  }
  return { ok: true, value: capOutput(json, options.maxBytes ?? DEFAULT_MAX_OUTPUT_BYTES) };
}

/**
 * Cuts JSON output larger than `maxBytes` (measured as JSON text): a long string keeps its head, anything else
 * becomes a marker. The result, suffix or marker included, is itself within `maxBytes` (so capping again changes
 * nothing), and it reports the original's true JSON size.
 */
export function capOutput(value: JsonValue, maxBytes: number): JsonValue {
  if (value === null || (typeof value !== "object" && typeof value !== "string")) return value;
  const text = JSON.stringify(value);
  if (text.length * 3 <= maxBytes) return value;
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return value;
  if (typeof value === "string") {
    const suffix = `... (truncated: ${bytes} bytes in all)`;
    return fitWithin({ text: value, maxBytes, build: (head) => `${head}${suffix}` }) as string;
  }
  return fitWithin({
    text,
    maxBytes,
    build: (head): JsonObject => ({
      truncated: true,
      totalBytes: bytes,
      note: `The output was ${bytes} bytes of JSON, over the ${maxBytes}-byte limit; preview holds its start.`,
      preview: `${head}... (truncated)`,
    }),
  });
}

/** The longest head of `text` for which `build(head)`, as JSON, fits in `maxBytes` (an empty head at worst). */
function fitWithin(options: { text: string; maxBytes: number; build: (head: string) => JsonValue }): JsonValue {
  const { text, maxBytes, build } = options;
  const overhead = Buffer.byteLength(JSON.stringify(build("")));
  let head = headOfBytes(text, Math.max(0, maxBytes - overhead));
  for (;;) {
    const built = build(head);
    // Escaping can make the head's JSON longer than its bytes; cut the excess (at least as many bytes) and retry.
    const over = Buffer.byteLength(JSON.stringify(built)) - maxBytes;
    if (over <= 0 || head === "") return built;
    head = headOfBytes(head, Math.max(0, Buffer.byteLength(head) - over));
  }
}

function headOfBytes(text: string, maxBytes: number): string {
  const head = Buffer.from(text).subarray(0, maxBytes).toString("utf8");
  // A cut inside a multi-byte character leaves U+FFFD at the end; drop it.
  return head.endsWith("\uFFFD") ? head.slice(0, -1) : head;
}

function convert(value: unknown, path: string, depth: number, seen: Set<object>): JsonValue {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "undefined":
      return null;
    case "bigint":
      return value.toString();
    case "function":
      throw new NotJson(`the tool output is not JSON: ${path} is a function`);
    case "symbol":
      throw new NotJson(`the tool output is not JSON: ${path} is a symbol`);
  }
  if (value === null) return null;
  const object = value as object;
  if (depth >= MAX_OUTPUT_DEPTH) {
    throw new NotJson(`the tool output is not JSON-safe: ${path} is nested deeper than ${MAX_OUTPUT_DEPTH} levels`);
  }
  if (seen.has(object)) throw new NotJson(`the tool output is not JSON: ${path} is a circular reference`);
  seen.add(object);
  try {
    return convertObject(object, path, depth, seen);
  } finally {
    seen.delete(object);
  }
}

function convertObject(object: object, path: string, depth: number, seen: Set<object>): JsonValue {
  if (Array.isArray(object)) {
    const out: JsonValue[] = new Array(object.length);
    for (let index = 0; index < object.length; index++)
      out[index] = convert(object[index], `${path}[${index}]`, depth + 1, seen);
    return out;
  }
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
  if (object instanceof Map) {
    const out: JsonObject = {};
    for (const [key, item] of object) {
      const name = typeof key === "string" ? key : String(key);
      if (item !== undefined) setOwn(out, name, convert(item, `${path}[${JSON.stringify(name)}]`, depth + 1, seen));
    }
    return out;
  }
  if (object instanceof Set) return convertObject(Array.from(object), path, depth, seen);
  if (ArrayBuffer.isView(object) && !(object instanceof DataView)) {
    return convertObject(Array.from(object as unknown as ArrayLike<number | bigint>), path, depth, seen);
  }
  if (object instanceof Error) {
    const code = (object as { code?: unknown }).code;
    return { name: object.name, message: String(object.message), ...(typeof code === "string" ? { code } : {}) };
  }
  if (typeof (object as { toJSON?: unknown }).toJSON === "function") {
    return convert((object as { toJSON(): unknown }).toJSON(), path, depth + 1, seen);
  }
  const out: JsonObject = {};
  for (const key of Object.keys(object)) {
    const item = (object as Record<string, unknown>)[key];
    if (item === undefined) continue;
    setOwn(out, key, convert(item, `${path}.${key}`, depth + 1, seen));
  }
  return out;
}

/** Assigns an own property, even for the key `__proto__` (which plain assignment would treat as the prototype). */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function safeMessage(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "unknown error";
  }
}
