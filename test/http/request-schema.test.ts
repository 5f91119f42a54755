/**
 * Every field of every route is checked by the route's schema (issue 11 item 5): a bad body field, query parameter
 * or path part is a 400 E_API_BAD_REQUEST whose message names it, and nothing is accepted or restarted; values at
 * the documented limits pass.
 */
import { describe, expect, it } from "bun:test";
import { createApiApp } from "../../src/http/http-api.ts";
import {
  compileRequestSchema,
  registeredSchemas,
  MAX_EVENTS_LIMIT,
  MAX_INSTANCE_KEY_LENGTH,
  MAX_REASON_LENGTH,
  MAX_TIMEOUT_MS,
} from "../../src/http/request-schema.ts";
import type { RestartRequest } from "../../src/orchestrator/reload/restart-coordinator.ts";
import { apiFixture, bodyOf } from "./api-fixture.ts";

async function expectRefused(response: Response, field: string): Promise<Record<string, any>> {
  expect(response.status).toBe(400);
  const body = await bodyOf(response);
  expect(body.error.code).toBe("E_API_BAD_REQUEST");
  expect(body.error.message).toContain(field);
  expect(JSON.stringify(body)).not.toContain("    at ");
  return body;
}

describe("the request schemas", () => {
  it("all compile under ajv's strict mode, though each route compiles its own only when first asked", () => {
    const { orchestrator } = apiFixture();
    createApiApp({ backend: { orchestrator, processes: () => [] } });
    const schemas = registeredSchemas();
    expect(schemas.length).toBeGreaterThan(20);
    for (const entry of schemas) expect(typeof compileRequestSchema(entry)).toBe("function");
    expect(() => compileRequestSchema({ part: "body", schema: { type: "object", propertys: {} } })).toThrow(
      /unknown keyword/,
    );
  });
});

describe("POST /v1/events body", () => {
  it.each([
    ["a 5,000-character instanceKey", { input: "x", instanceKey: "k".repeat(5000) }, "/instanceKey"],
    [
      "an instanceKey one past the limit",
      { input: "x", instanceKey: "k".repeat(MAX_INSTANCE_KEY_LENGTH + 1) },
      "/instanceKey",
    ],
    ["an empty instanceKey", { input: "x", instanceKey: "" }, "/instanceKey"],
    ["an instanceKey with a NUL", { input: "x", instanceKey: "a\u0000b" }, "/instanceKey"],
    ["an instanceKey with a newline", { input: "x", instanceKey: "a\nb" }, "/instanceKey"],
    ["an instanceKey with a lone surrogate", { input: "x", instanceKey: "a\ud800" }, "/instanceKey"],
    ["an instanceKey that is a number", { input: "x", instanceKey: 7 }, "/instanceKey"],
    ["an empty input", { input: "" }, "/input"],
    ["an input that is not a string", { input: ["x"] }, "/input"],
    ["a missing input", { agent: "a" }, "/input"],
    ["metadata as an array", { input: "x", metadata: [1] }, "/metadata"],
    ["metadata as a string", { input: "x", metadata: "m" }, "/metadata"],
    ["metadata as null", { input: "x", metadata: null }, "/metadata"],
    ["wait as a string", { input: "x", wait: "yes" }, "/wait"],
    ["stream as a number", { input: "x", stream: 1 }, "/stream"],
    ["a zero timeoutMs", { input: "x", wait: true, timeoutMs: 0 }, "/timeoutMs"],
    ["a timeoutMs as text", { input: "x", wait: true, timeoutMs: "10" }, "/timeoutMs"],
    ["a timeoutMs past the timer range", { input: "x", wait: true, timeoutMs: MAX_TIMEOUT_MS + 1 }, "/timeoutMs"],
    ["an empty agent", { input: "x", agent: "" }, "/agent"],
    ["an agent past the name limit", { input: "x", agent: "a".repeat(254) }, "/agent"],
    ["an unknown field", { input: "x", agnet: "a" }, "/agnet"],
  ])("refuses %s and accepts nothing", async (_name, body, field) => {
    const { request, orchestrator } = apiFixture();
    await expectRefused(await request("POST", "/v1/events", body), field);
    expect(await orchestrator.instances()).toEqual([]);
  });

  it("names every failing field at once and lists the allowed keys as the suggestion", async () => {
    const { request } = apiFixture();
    const { error } = await expectRefused(
      await request("POST", "/v1/events", { input: "", metadata: [], wait: "no", extra: true }),
      "/input",
    );
    for (const field of ["/metadata", "/wait", "/extra"]) expect(error.message).toContain(field);
    expect(error.suggestion).toContain(
      "Allowed keys (no others): input (string), agent (string), instanceKey (string), wait (boolean), stream (boolean), timeoutMs (integer), metadata (object)",
    );
  });

  it("accepts values at the limits: a 256-character key, any printable Unicode, metadata objects, the longest timer", async () => {
    const { request, orchestrator } = apiFixture();
    for (const instanceKey of ["k".repeat(MAX_INSTANCE_KEY_LENGTH), "가 ¬00 🐝 user@example.com/42", "."]) {
      expect(
        (await request("POST", "/v1/events", { input: "x", instanceKey, metadata: { nested: { ok: [1] } } })).status,
      ).toBe(202);
    }
    expect(
      (
        await request("POST", "/v1/events", {
          input: "x\n\ttabs and newlines are text",
          agent: "b",
          wait: false,
          stream: false,
          timeoutMs: MAX_TIMEOUT_MS,
        })
      ).status,
    ).toBe(202);
    expect(await orchestrator.instances()).toHaveLength(4);
  });
});

describe("POST /v1/restart body", () => {
  function restartFixture() {
    const asked: RestartRequest[] = [];
    const fixture = apiFixture({ restart: async (restart) => (asked.push(restart), { accepted: true, issues: [] }) });
    return { ...fixture, asked };
  }

  it.each([
    ['fresh: "yes"', { fresh: "yes" }, "/fresh"],
    ["a reason past the limit", { reason: "r".repeat(MAX_REASON_LENGTH + 1) }, "/reason"],
    ["a reason that is not text", { reason: 5 }, "/reason"],
    ["an agent that is not text", { agent: ["a"] }, "/agent"],
    [
      "an instanceKey past the limit",
      { agent: "a", instanceKey: "k".repeat(MAX_INSTANCE_KEY_LENGTH + 1) },
      "/instanceKey",
    ],
    ["an unknown field", { agent: "a", instance: "k" }, "/instance"],
  ])("refuses %s and restarts nothing", async (_name, body, field) => {
    const { request, asked } = restartFixture();
    await expectRefused(await request("POST", "/v1/restart", body), field);
    expect(asked).toEqual([]);
  });

  it("passes a valid reason on", async () => {
    const { request, asked } = restartFixture();
    expect((await request("POST", "/v1/restart", { reason: "deploy 42", agent: "b" })).status).toBe(202);
    expect(asked).toEqual([{ reason: "deploy 42", agent: "b" }]);
  });
});

describe("query parameters and path parts", () => {
  const events = "/v1/instances/a/k/events";

  it.each(["0", "-1", "abc", "1.5", String(MAX_EVENTS_LIMIT + 1), "1&limit=2", ""])(
    "refuses ?limit=%s",
    async (limit) => {
      const { request } = apiFixture();
      await expectRefused(await request("GET", `${events}?limit=${limit}`), "/limit");
    },
  );

  it.each([
    ["GET", "/healthz?verbose=1", "/verbose"],
    ["GET", "/v1/processes?all", "/all"],
    ["GET", "/v1/instances?agent=a", "/agent"],
    ["GET", `${events}?limit=1&since=0`, "/since"],
    ["POST", "/v1/events?wait=true", "/wait"],
    ["POST", "/v1/restart?fresh=true", "/fresh"],
  ])("refuses an unknown query parameter: %s %s", async (method, path, field) => {
    const { request, orchestrator } = apiFixture({ restart: async () => ({ accepted: true, issues: [] }) });
    await expectRefused(await request(method, path, method === "POST" ? { input: "x" } : undefined), field);
    expect(await orchestrator.instances()).toEqual([]);
  });

  it("takes the largest limit, and checks the path's agent and instance key like the body's", async () => {
    const { request } = apiFixture();
    expect((await request("GET", `${events}?limit=${MAX_EVENTS_LIMIT}`)).status).toBe(404); // no events yet: the query passed
    await expectRefused(
      await request("GET", `/v1/instances/a/${"k".repeat(MAX_INSTANCE_KEY_LENGTH + 1)}/events`),
      "/instanceKey",
    );
    await expectRefused(await request("GET", "/v1/instances/a/k%00/events"), "/instanceKey");
    await expectRefused(await request("GET", `/v1/instances/${"a".repeat(254)}/k/events`), "/agent");
  });
});
