/**
 * The OpenAI-compatible routes in process (over the fake spawner): the models a swarm lists, and every refusal in
 * OpenAI's error shape with the status OpenAI would give, those of the shared checks (token, method, media type,
 * JSON) included; the surface turned off is not served.
 */
import { describe, expect, it } from "bun:test";
import { apiSurfacesFromEnv } from "../../../src/http/api-surfaces.ts";
import { apiFixture, bodyOf } from "../api-fixture.ts";

const chat = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: "user", content: "hello" }],
  ...extra,
});

/** The error of an OpenAI-shaped answer, after checking the shape. */
async function openAiError(response: Response) {
  const body = await bodyOf(response);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  return body.error as { code: string; type: string; message: string };
}

describe("GET /v1/models", () => {
  it("lists the swarm (its entry agent) and swarm/agent for each member", async () => {
    const { request } = apiFixture();
    const body = await bodyOf(await request("GET", "/v1/models"));
    expect(body.object).toBe("list");
    expect(body.data.map((model: { id: string }) => model.id)).toEqual(["test-swarm", "test-swarm/a", "test-swarm/b"]);
    expect(body.data[0]).toMatchObject({ object: "model", owned_by: "test-swarm" });
  });
});

describe("POST /v1/chat/completions refusals", () => {
  it("answers an unknown model with 404 E_CHAT_MODEL_NOT_FOUND naming the models", async () => {
    const { request } = apiFixture();
    const response = await request("POST", "/v1/chat/completions", chat("gpt-4o"));
    expect(response.status).toBe(404);
    const error = await openAiError(response);
    expect(error).toMatchObject({ code: "E_CHAT_MODEL_NOT_FOUND", type: "invalid_request_error" });
    expect(error.message).toContain("test-swarm/a");
  });

  it("answers a body that breaks the schema with 400 naming the field", async () => {
    const { request } = apiFixture();
    const response = await request("POST", "/v1/chat/completions", { model: "test-swarm", messages: [] });
    expect(response.status).toBe(400);
    const error = await openAiError(response);
    expect(error.code).toBe("E_API_BAD_REQUEST");
    expect(error.message).toContain("/messages");
  });

  it("refuses caller-side tools, several choices and a conversation ending in an assistant message", async () => {
    const { request } = apiFixture();
    for (const body of [
      chat("test-swarm", { tools: [{ type: "function", function: { name: "x" } }] }),
      chat("test-swarm", { n: 2 }),
      { model: "test-swarm", messages: [{ role: "assistant", content: "hi" }] },
    ]) {
      const response = await request("POST", "/v1/chat/completions", body);
      expect(response.status).toBe(400);
      expect((await openAiError(response)).type).toBe("invalid_request_error");
    }
  });

  it("answers bad JSON, another media type and another method in OpenAI's shape", async () => {
    const { request } = apiFixture();
    const badJson = await request("POST", "/v1/chat/completions", "{nope");
    expect(badJson.status).toBe(400);
    expect((await openAiError(badJson)).code).toBe("E_API_BAD_JSON");
    const text = await request("POST", "/v1/chat/completions", "hi", { "content-type": "text/plain" });
    expect(text.status).toBe(415);
    expect((await openAiError(text)).code).toBe("E_API_UNSUPPORTED_MEDIA_TYPE");
    const get = await request("GET", "/v1/chat/completions");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect((await openAiError(get)).code).toBe("E_API_METHOD_NOT_ALLOWED");
  });

  it("answers a missing bearer token with 401 authentication_error", async () => {
    const { request } = apiFixture({ token: "secret" });
    const response = await request("POST", "/v1/chat/completions", chat("test-swarm"));
    expect(response.status).toBe(401);
    expect((await openAiError(response)).type).toBe("authentication_error");
    const models = await request("GET", "/v1/models", undefined, { authorization: "Bearer secret" });
    expect(models.status).toBe(200);
  });

  it("keeps the API's own error shape on its own routes", async () => {
    const { request } = apiFixture();
    const body = await bodyOf(await request("GET", "/v1/events/nope"));
    expect(body.error.code).toBe("E_API_EVENT_NOT_FOUND");
    expect(body.error.type).toBeUndefined();
  });
});

describe("GOONDAN_API_SURFACES_OFF", () => {
  it("turns the openai surface off", async () => {
    const { request } = apiFixture(apiSurfacesFromEnv({ GOONDAN_API_SURFACES_OFF: "openai" }));
    expect((await request("GET", "/v1/models")).status).toBe(404);
    expect((await request("POST", "/v1/chat/completions", chat("test-swarm"))).status).toBe(404);
  });

  it("refuses a name that is not a surface", () => {
    expect(() => apiSurfacesFromEnv({ GOONDAN_API_SURFACES_OFF: "openai, grpc" })).toThrow(
      expect.objectContaining({ code: "E_API_SURFACES_INVALID" }),
    );
  });
});
