/**
 * The query check of routes that take no query parameters: any parameter is a `400 E_API_BAD_REQUEST` naming it,
 * so a misspelt option is reported instead of silently ignored.
 */
import { validator } from "hono/validator";
import { requestSchema } from "../request-schema.ts";

export function noQuery(route: string) {
  const check = requestSchema<Record<string, never>>({
    route,
    part: "query",
    schema: { type: "object", additionalProperties: false, properties: {} },
  });
  return validator("query", (value) => check(value));
}
