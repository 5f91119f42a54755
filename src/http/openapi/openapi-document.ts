/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the request schemas the routes validate with
 * (request-schema.ts): each route's path and query parameters, and its JSON body, are the very schemas its checks
 * compile, so the document cannot drift from what the API accepts. Answers are described once: a JSON success, and
 * the API's error shape for everything else. `undocumentedRoutes` names the routes of an app that no schema
 * describes (the studio's static pages aside): a test keeps that list empty.
 */
import type { JsonObject } from "../../shared/json.ts";
import type { RegisteredSchema } from "../request-schema.ts";

export interface ServedRoute {
  method: string;
  path: string;
}

/** The studio's static pages: served by the API's port, not part of the JSON API. */
const NOT_API = new Set(["GET /", "GET /studio/:file"]);

const routeKey = (route: ServedRoute) => `${route.method} ${route.path}`;

/** The distinct routes of an app (hono's `app.routes`), middleware entries left out. */
export function apiRoutes(routes: readonly ServedRoute[]): ServedRoute[] {
  const seen = new Map<string, ServedRoute>();
  for (const route of routes)
    if (route.method !== "ALL" && !NOT_API.has(routeKey(route))) seen.set(routeKey(route), route);
  return [...seen.values()];
}

/** Routes no request schema describes. */
export function undocumentedRoutes(options: {
  routes: readonly ServedRoute[];
  schemas: readonly RegisteredSchema[];
}): string[] {
  const described = new Set(options.schemas.map((schema) => schema.route));
  return apiRoutes(options.routes)
    .map(routeKey)
    .filter((key) => !described.has(key));
}

const ERROR_SCHEMA: JsonObject = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string" }, message: { type: "string" }, suggestion: { type: "string" } },
    },
  },
};

function parameters(schema: JsonObject | undefined, location: "path" | "query"): JsonObject[] {
  const properties = (schema?.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((schema?.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === "path" || required.has(name),
    schema: property,
  }));
}

function operation(route: ServedRoute, parts: Map<string, JsonObject>): JsonObject {
  const key = routeKey(route);
  const body = parts.get("body");
  return {
    operationId: key.replace(/[^A-Za-z0-9]+/g, "_").replace(/_$/, ""),
    parameters: [...parameters(parts.get("path"), "path"), ...parameters(parts.get("query"), "query")],
    ...(body === undefined
      ? {}
      : { requestBody: { required: true, content: { "application/json": { schema: body } } } }),
    responses: {
      "200": { description: "the route's answer (docs/http-api.md, docs/interop.md)" },
      default: {
        description: "a refusal or failure, in the API's error shape (OpenAI's on the OpenAI-compatible routes)",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    },
  };
}

export function openApiDocument(options: {
  routes: readonly ServedRoute[];
  schemas: readonly RegisteredSchema[];
  version: string;
}): JsonObject {
  const byRoute = new Map<string, Map<string, JsonObject>>();
  for (const { route, part, schema } of options.schemas) {
    const parts = byRoute.get(route) ?? new Map<string, JsonObject>();
    if (!parts.has(part)) parts.set(part, schema);
    byRoute.set(route, parts);
  }
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of apiRoutes(options.routes)) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route, byRoute.get(routeKey(route)) ?? new Map());
  }
  return {
    openapi: "3.1.0",
    info: { title: "goondan HTTP API", version: options.version },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { Error: ERROR_SCHEMA },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
