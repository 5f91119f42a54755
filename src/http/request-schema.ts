/**
 * Request schemas of the HTTP API: each route's body, query and path parameters are checked against one JSON
 * Schema, compiled once with ajv when the route first checks a value. A value that fails is a `400 E_API_BAD_REQUEST`
 * naming every failing field and what it expected (described like tool arguments, tools/args-validator.ts);
 * query and path values arrive as text and are coerced to the schema's types (`limit=5` becomes 5). The field
 * schemas every route shares, and the limits the docs state, live here too. Every schema is also kept,
 * by route and part, for the OpenAPI document (openapi/openapi-document.ts): one truth for checks and docs.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import type { JsonObject } from "../shared/json.ts";
import { describeSchemaError, keysSuggestion } from "../tools/args-validator.ts";
import { ApiError } from "./api-error.ts";

/** The longest instance key the API takes, in characters. */
export const MAX_INSTANCE_KEY_LENGTH = 256;
/** The longest agent name (a resource's `metadata.name`). */
export const MAX_AGENT_NAME_LENGTH = 253;
/** The longest `reason` of a restart. */
export const MAX_REASON_LENGTH = 1000;
/** The longest wait a timer can hold (2^31-1 ms, ~24.8 days): setTimeout fires at once past it. */
export const MAX_TIMEOUT_MS = 2_147_483_647;
/** The most runtime events one `?limit=` asks for. */
export const MAX_EVENTS_LIMIT = 100_000;

/** A name or key: printable text, no control characters, no lone UTF-16 surrogates. */
const PRINTABLE = { pattern: "^[^\\p{Cc}\\p{Cs}]*$", description: "no control characters or lone surrogates" };

export const AGENT_NAME_SCHEMA = { type: "string", minLength: 1, maxLength: MAX_AGENT_NAME_LENGTH, ...PRINTABLE };
export const INSTANCE_KEY_SCHEMA = { type: "string", minLength: 1, maxLength: MAX_INSTANCE_KEY_LENGTH, ...PRINTABLE };
/** The `:eventId` path parameter of the routes about one accepted event. */
export const EVENT_ID_PATH_SCHEMA = {
  type: "object",
  required: ["eventId"],
  additionalProperties: false,
  properties: { eventId: { type: "string", minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_.:-]+$" } },
};

export type RequestPart = "body" | "query" | "path";

export interface RegisteredSchema {
  /** `METHOD /path/:param`, as the route's errors name it. */
  route: string;
  part: RequestPart;
  schema: JsonObject;
}

const registered: RegisteredSchema[] = [];

/** Every request schema compiled so far, in the order the route modules loaded. */
export function registeredSchemas(): readonly RegisteredSchema[] {
  return registered;
}

const compilers: Partial<Record<"json" | "text", Ajv>> = {};

function compilerFor(part: RequestPart): Ajv {
  const kind = part === "body" ? "json" : "text";
  compilers[kind] ??= new Ajv({ allErrors: true, verbose: true, strict: true, coerceTypes: kind === "text" });
  return compilers[kind];
}

/** Like a tool argument's failure, except that a pattern's description reads better than the pattern itself. */
function describeError(error: ErrorObject): string {
  const description = (error.parentSchema as { description?: unknown } | undefined)?.description;
  if (error.keyword !== "pattern" || typeof description !== "string") return describeSchemaError(error);
  const found = JSON.stringify(error.data) ?? "";
  return `${error.instancePath}: expected ${description}, got ${found.length > 60 ? `${found.slice(0, 57)}...` : found}`;
}

/**
 * Compiles `schema` for one part of a route's requests and returns its check: the value, typed, when it
 * matches (query and path values coerced), else a thrown `400 E_API_BAD_REQUEST`.
 */
export function requestSchema<T>(options: {
  route: string;
  part: RequestPart;
  schema: JsonObject;
}): (value: unknown) => T {
  registered.push({ route: options.route, part: options.part, schema: options.schema });
  const suggestion = options.part === "body" ? keysSuggestion(options.schema) : allowedParameters(options);
  let validate: ValidateFunction | undefined;
  return (value) => {
    validate ??= compileRequestSchema(options);
    if (validate(value)) return value as T;
    const errors = validate.errors ?? [];
    const problems = [...new Set(errors.map(describeError))];
    const shown = problems.slice(0, 10);
    const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more` : "";
    throw new ApiError({
      status: 400,
      code: "E_API_BAD_REQUEST",
      message: `${options.route}: invalid ${options.part}: ${shown.join("; ")}${more}`,
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  };
}

/**
 * One route part's schema compiled. Compiling is most of what starting the API costs (ajv writes a function per
 * schema), so each is compiled when its route first checks a value; `test/http/request-schema.test.ts` compiles every
 * registered one, so a bad schema still fails the tests, not a request.
 */
export function compileRequestSchema(entry: Pick<RegisteredSchema, "part" | "schema">): ValidateFunction {
  return compilerFor(entry.part).compile(entry.schema);
}

function allowedParameters(options: { part: RequestPart; schema: JsonObject }): string | undefined {
  const properties = options.schema.properties;
  const names =
    properties !== null && typeof properties === "object" && !Array.isArray(properties) ? Object.keys(properties) : [];
  if (options.part === "path") return undefined;
  return names.length === 0
    ? "This route takes no query parameters."
    : `Allowed query parameters: ${names.join(", ")}.`;
}
