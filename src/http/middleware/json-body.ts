/**
 * A route's JSON body, checked before the route runs: only `application/json` (or `application/*+json`, UTF-8) is
 * taken, so a page cannot send the "simple" `text/plain` or form POST a browser makes without asking; anything
 * else, a body without a content type included, is `415 E_API_UNSUPPORTED_MEDIA_TYPE`. Then at most `maxBytes`
 * (hono's body-limit, on the declared length or while streaming: `413 E_API_BODY_TOO_LARGE`), nested at most
 * `MAX_JSON_DEPTH` deep (measured on the text before it is parsed: `400 E_API_BODY_TOO_DEEP`), a JSON object
 * (`400 E_API_BAD_JSON`), and the route's schema (`400 E_API_BAD_REQUEST`). The checked body is `c.var.body`.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { every } from "hono/combine";
import { isJsonObject } from "../../shared/json.ts";
import { jsonTextDepth, MAX_JSON_DEPTH } from "../../shared/json-depth.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";

const JSON_MEDIA_TYPE = /^application\/([a-z0-9.!#$&^_-]+\+)?json$/;

const unsupported = (found: string): ApiError =>
  new ApiError({
    status: 415,
    code: "E_API_UNSUPPORTED_MEDIA_TYPE",
    message: `expected a body of type application/json, got ${found}`,
    suggestion: "send the body as JSON with Content-Type: application/json",
  });

/** Whether a Content-Type names UTF-8 JSON (`application/json; charset=utf-8` is; `text/plain` is not). */
export function isJsonContentType(type: string): boolean {
  const [media = "", ...parameters] = type.split(";").map((part) => part.trim().toLowerCase());
  if (!JSON_MEDIA_TYPE.test(media)) return false;
  const charset = parameters
    .find((parameter) => parameter.startsWith("charset="))
    ?.slice("charset=".length)
    .replaceAll('"', "");
  return charset === undefined || charset === "utf-8" || charset === "utf8";
}

export function jsonBody(options: {
  maxBytes: number;
  check: (value: unknown) => unknown;
  optional?: boolean;
}): MiddlewareHandler<ApiEnv> {
  const contentType: MiddlewareHandler<ApiEnv> = async (c, next) => {
    const type = c.req.header("content-type");
    if (type !== undefined && !isJsonContentType(type)) throw unsupported(JSON.stringify(type.slice(0, 100)));
    await next();
  };
  const limit = bodyLimit({
    maxSize: options.maxBytes,
    onError: () => {
      throw new ApiError({
        status: 413,
        code: "E_API_BODY_TOO_LARGE",
        message: `body exceeds the ${options.maxBytes}-byte limit`,
        suggestion: "send a smaller body",
      });
    },
  });
  const parse: MiddlewareHandler<ApiEnv> = async (c, next) => {
    const text = await c.req.text();
    if (text.trim() !== "" && c.req.header("content-type") === undefined)
      throw unsupported("a body without a Content-Type");
    let value: unknown = {};
    if (text.trim() === "") {
      if (!options.optional)
        throw new ApiError({
          status: 400,
          code: "E_API_BAD_JSON",
          message: "expected a JSON object body, got an empty body",
        });
    } else {
      if (jsonTextDepth(text) > MAX_JSON_DEPTH)
        throw new ApiError({
          status: 400,
          code: "E_API_BODY_TOO_DEEP",
          message: `body nests objects and arrays more than ${MAX_JSON_DEPTH} deep`,
          suggestion: `flatten the body; at most ${MAX_JSON_DEPTH} levels of objects and arrays are accepted`,
        });
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new ApiError({
          status: 400,
          code: "E_API_BAD_JSON",
          message: `body is not valid JSON: ${(error as Error).message}`,
        });
      }
    }
    if (!isJsonObject(value))
      throw new ApiError({
        status: 400,
        code: "E_API_BAD_JSON",
        message: `expected a JSON object body, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`,
      });
    c.set("body", options.check(value));
    await next();
  };
  return every(contentType, limit, parse);
}
