/**
 * The A2A routes in process (over the fake spawner): the agent card names the entry agent as its skill and the
 * JSON-RPC URL on the address asked; refusals are JSON-RPC errors (a body that is not JSON, an envelope that is not
 * JSON-RPC, an unknown method, a missing token), never the API's own shape; the surface turned off is not served.
 */
import { describe, expect, it } from "bun:test";
import { apiSurfacesFromEnv } from "../../../src/http/api-surfaces.ts";
import { apiFixture, bodyOf } from "../api-fixture.ts";

const rpc = (method: string, params: unknown = {}) => ({ jsonrpc: "2.0", id: 1, method, params });
const a2a = { "A2A-Version": "1.0" };

describe("the A2A agent card", () => {
  it("names the entry agent as its skill and the JSON-RPC and HTTP+JSON URLs on the address asked", async () => {
    const { request } = apiFixture();
    const card = await bodyOf(await request("GET", "/.well-known/agent-card.json"));
    expect(card.name).toBe("test-swarm");
    expect(card.skills.map((skill: { id: string }) => skill.id)).toEqual(["a"]);
    expect(card.supportedInterfaces).toEqual([
      { url: "http://127.0.0.1/v1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: "http://127.0.0.1/v1/a2a/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
  });

  it("declares the bearer token when the API has one", async () => {
    const { request } = apiFixture({ token: "secret" });
    const card = await bodyOf(
      await request("GET", "/.well-known/agent-card.json", undefined, { authorization: "Bearer secret" }),
    );
    expect(Object.keys(card.securitySchemes)).toEqual(["bearer"]);
  });
});

describe("POST /v1/a2a refusals", () => {
  it("answers a body that is not JSON with JSON-RPC's parse error", async () => {
    const { request } = apiFixture();
    const response = await request("POST", "/v1/a2a", "{nope", a2a);
    expect(response.status).toBe(400);
    const body = await bodyOf(response);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    expect(body.error.data[0].reason).toBe("E_API_BAD_JSON");
  });

  it("answers an envelope that is not JSON-RPC with invalid request", async () => {
    const { request } = apiFixture();
    const response = await request("POST", "/v1/a2a", { method: "SendMessage" }, a2a);
    expect(response.status).toBe(400);
    expect((await bodyOf(response)).error.code).toBe(-32600);
  });

  it("answers an unknown method with the SDK's method-not-found error", async () => {
    const { request } = apiFixture();
    const body = await bodyOf(await request("POST", "/v1/a2a", rpc("NoSuchMethod"), a2a));
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32601 } });
  });

  it("answers a missing token with a JSON-RPC error and status 401", async () => {
    const { request } = apiFixture({ token: "secret" });
    const response = await request("POST", "/v1/a2a", rpc("GetTask", { id: "x" }), a2a);
    expect(response.status).toBe(401);
    expect((await bodyOf(response)).error.data[0].reason).toBe("E_API_UNAUTHORIZED");
  });

  it("is not served when turned off", async () => {
    const { request } = apiFixture(apiSurfacesFromEnv({ GOONDAN_API_SURFACES_OFF: "a2a" }));
    expect((await request("GET", "/.well-known/agent-card.json")).status).toBe(404);
    expect((await request("POST", "/v1/a2a", rpc("GetTask", { id: "x" }), a2a)).status).toBe(404);
  });
});
