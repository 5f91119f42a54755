/**
 * `GET /v1/openapi.json`: the OpenAPI 3.1 document of the API this app serves (openapi-document.ts), built once, on
 * the first request, when every route module has loaded and compiled its schemas.
 */
import { Hono } from "hono";
import packageJson from "../../../package.json" with { type: "json" };
import type { JsonObject } from "../../shared/json.ts";
import type { ApiEnv } from "../api-env.ts";
import { registeredSchemas } from "../request-schema.ts";
import { noQuery } from "../routes/no-query.ts";
import { openApiDocument, type ServedRoute } from "./openapi-document.ts";

export function openApiRoutes(options: { routes: () => readonly ServedRoute[] }): Hono<ApiEnv> {
  let document: JsonObject | undefined;
  return new Hono<ApiEnv>().get("/v1/openapi.json", noQuery("GET /v1/openapi.json"), (c) => {
    document ??= openApiDocument({
      routes: options.routes(),
      schemas: registeredSchemas(),
      version: packageJson.version,
    });
    return c.json(document);
  });
}
