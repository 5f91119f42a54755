/**
 * Reads a JSON object request body with a size cap, for the HTTP API: 413 past the cap (checked on the
 * declared Content-Length and again while streaming), 400 for bad JSON or a non-object, 415 for a body
 * declared as something other than JSON.
 */
import { isJsonObject, type JsonObject } from "../shared/json.ts";
import { UsageError } from "../shared/errors.ts";

/** A request body the API cannot take, with the HTTP status to answer. */
export class BodyError extends UsageError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
  ) {
    super(code, message);
  }
}

export async function readJsonBody(request: Request, options: { maxBytes: number; optional?: boolean }): Promise<JsonObject> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > options.maxBytes) throw new BodyError(413, "E_API_BODY_TOO_LARGE", `body of ${declared} bytes exceeds the ${options.maxBytes}-byte limit`);
  const type = request.headers.get("content-type");
  if (type && !/^application\/(.+\+)?json\b/i.test(type) && !type.startsWith("text/plain")) throw new BodyError(415, "E_API_UNSUPPORTED_MEDIA_TYPE", `expected application/json, got ${type}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    for await (const chunk of request.body) {
      size += chunk.byteLength;
      if (size > options.maxBytes) throw new BodyError(413, "E_API_BODY_TOO_LARGE", `body exceeds the ${options.maxBytes}-byte limit`);
      chunks.push(chunk);
    }
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") {
    if (options.optional) return {};
    throw new BodyError(400, "E_API_BAD_JSON", "expected a JSON object body, got an empty body");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BodyError(400, "E_API_BAD_JSON", `body is not valid JSON: ${(error as Error).message}`);
  }
  if (!isJsonObject(value)) throw new BodyError(400, "E_API_BAD_JSON", `expected a JSON object body, got ${Array.isArray(value) ? "an array" : typeof value}`);
  return value;
}
