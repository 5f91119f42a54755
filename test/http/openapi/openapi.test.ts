/**
 * The OpenAPI document against the API itself: every route the app serves (the studio's static pages aside) has a
 * request schema, so a route added without one fails here; the document at GET /v1/openapi.json is OpenAPI 3.1 and
 * describes each route with the very schemas its checks compile.
 */
import { describe, expect, it } from "bun:test";
import { createApiApp } from "../../../src/http/http-api.ts";
import { undocumentedRoutes } from "../../../src/http/openapi/openapi-document.ts";
import { registeredSchemas } from "../../../src/http/request-schema.ts";
import { apiFixture, bodyOf } from "../api-fixture.ts";

describe("the OpenAPI document", () => {
  it("leaves no route of the API without a request schema", () => {
    const { orchestrator } = apiFixture();
    const app = createApiApp({ backend: { orchestrator, processes: () => [] } });
    expect(app.routes.filter((route) => route.method !== "ALL").length).toBeGreaterThan(15);
    expect(undocumentedRoutes({ routes: app.routes, schemas: registeredSchemas() })).toEqual([]);
  });

  it("names a route that has no schema", () => {
    const routes = [
      { method: "GET", path: "/v1/described" },
      { method: "POST", path: "/v1/bare" },
      { method: "GET", path: "/" },
      { method: "ALL", path: "*" },
    ];
    const schemas = [{ route: "GET /v1/described", part: "query" as const, schema: { type: "object" } }];
    expect(undocumentedRoutes({ routes, schemas })).toEqual(["POST /v1/bare"]);
  });

  it("is served at GET /v1/openapi.json as OpenAPI 3.1 with the routes' own schemas", async () => {
    const { request } = apiFixture();
    const document = await bodyOf(await request("GET", "/v1/openapi.json"));
    expect(document.openapi).toBe("3.1.0");
    expect(document.components.securitySchemes.bearer).toEqual({ type: "http", scheme: "bearer" });
    const events = registeredSchemas().find((entry) => entry.route === "POST /v1/events" && entry.part === "body");
    expect(document.paths["/v1/events"].post.requestBody.content["application/json"].schema).toEqual(events?.schema);
    const state = document.paths["/v1/events/{eventId}"].get;
    expect(state.parameters).toEqual([expect.objectContaining({ name: "eventId", in: "path", required: true })]);
    const decide = document.paths["/v1/approvals/{id}"].post;
    expect(decide.requestBody.content["application/json"].schema.required).toEqual(["decision"]);
    expect(document.paths["/v1/chat/completions"].post.requestBody).toBeDefined();
    expect(document.paths["/v1/ag-ui"].post.requestBody).toBeDefined();
    expect(
      document.paths["/v1/instances/{agent}/{instanceKey}/events"].get.parameters.map(
        (parameter: { name: string }) => parameter.name,
      ),
    ).toEqual(["agent", "instanceKey", "limit", "after"]);
    expect(document.paths["/"]).toBeUndefined();
  });
});
