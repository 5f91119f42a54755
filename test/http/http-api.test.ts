import { describe, expect, it } from "bun:test";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import { seedConversation, type RoutingSetup } from "../orchestrator/routing/routing-harness.ts";
import { serveHttpApi } from "../../src/http/http-api.ts";
import { main } from "../../src/cli/main.ts";
import type { CliIo } from "../../src/cli/command.ts";
import { apiFixture, backendOf, bodyOf } from "./api-fixture.ts";

const setup = apiFixture;

describe("HTTP API", () => {
  it("GET /healthz answers ok", async () => {
    const { request } = setup();
    const response = await request("GET", "/healthz");
    expect(response.status).toBe(200);
    expect(await bodyOf(response)).toEqual({ status: "ok" });
  });

  it("POST /v1/events accepts durably with 202 and an eventId", async () => {
    const { request, orchestrator } = setup();
    const response = await request("POST", "/v1/events", { input: "hello" });
    expect(response.status).toBe(202);
    const body = await bodyOf(response);
    expect(body).toMatchObject({ eventId: expect.any(String), agent: "a", instanceKey: "test-swarm" });
    expect(await orchestrator.instances()).toEqual([expect.objectContaining({ agent: "a", queued: 1 })]);
  });

  it("POST /v1/events with wait answers with the turn's outcome", async () => {
    const { request, spawner } = setup();
    spawner.onSent = (child, message) => {
      if (message.type === "event") queueMicrotask(() => child.reply({ response: "waited" }));
    };
    const response = await request("POST", "/v1/events", { input: "hello", agent: "b", instanceKey: "k", wait: true });
    expect(response.status).toBe(200);
    expect(await bodyOf(response)).toMatchObject({
      status: "ok",
      agent: "b",
      instanceKey: "k",
      response: "waited",
      finishReason: "stop",
      turnId: expect.any(String),
      eventId: expect.any(String),
    });
  });

  it("POST /v1/events with wait answers 504 E_AGENT_REQUEST_TIMEOUT after timeoutMs", async () => {
    const { request } = setup();
    const response = await request("POST", "/v1/events", { input: "slow", wait: true, timeoutMs: 20 });
    expect(response.status).toBe(504);
    expect(await bodyOf(response)).toMatchObject({
      error: { code: "E_AGENT_REQUEST_TIMEOUT" },
      eventId: expect.any(String),
    });
  });

  it.each([
    ["bad JSON", "{nope", 400, "E_API_BAD_JSON"],
    ["a non-object", "[1]", 400, "E_API_BAD_JSON"],
    ["a missing input", { agent: "a" }, 400, "E_API_BAD_REQUEST"],
    ["an unknown agent", { input: "x", agent: "zed" }, 404, "E_AGENT_NOT_FOUND"],
    ["a bad timeoutMs", { input: "x", wait: true, timeoutMs: -1 }, 400, "E_API_BAD_REQUEST"],
    [
      "a timeoutMs past the 32-bit timer range",
      { input: "x", wait: true, timeoutMs: 3_000_000_000 },
      400,
      "E_API_BAD_REQUEST",
    ],
    ["a huge timeoutMs", { input: "x", wait: true, timeoutMs: 1e300 }, 400, "E_API_BAD_REQUEST"],
    ["a fractional timeoutMs", { input: "x", wait: true, timeoutMs: 1.5 }, 400, "E_API_BAD_REQUEST"],
  ])("POST /v1/events with %s is refused", async (_name, body, status, code) => {
    const { request } = setup();
    const response = await request("POST", "/v1/events", body);
    expect(response.status).toBe(status);
    const json = await bodyOf(response);
    expect(json.error.code).toBe(code);
    expect(JSON.stringify(json)).not.toContain("    at ");
  });

  it("names the field and the accepted range when timeoutMs is out of range, and accepts nothing", async () => {
    const { request, orchestrator } = setup();
    const response = await request("POST", "/v1/events", { input: "x", wait: true, timeoutMs: 2_147_483_648 });
    expect(response.status).toBe(400);
    const { error } = await bodyOf(response);
    expect(error.message).toContain("timeoutMs");
    expect(error.message).toContain("2147483647");
    expect(await orchestrator.instances()).toEqual([]);
  });

  it("refuses a body over the limit with 413", async () => {
    const { request } = setup({ maxBodyBytes: 100 });
    const response = await request("POST", "/v1/events", { input: "x".repeat(200) });
    expect(response.status).toBe(413);
    expect((await bodyOf(response)).error.code).toBe("E_API_BODY_TOO_LARGE");
  });

  it("answers 404 for an unknown route and 405 with Allow for a wrong method", async () => {
    const { request } = setup();
    const missing = await request("GET", "/v2/nothing");
    expect(missing.status).toBe(404);
    expect((await bodyOf(missing)).error.code).toBe("E_API_NOT_FOUND");
    const wrong = await request("DELETE", "/v1/events");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect((await bodyOf(wrong)).error.code).toBe("E_API_METHOD_NOT_ALLOWED");
  });

  it("requires the bearer token on everything but /healthz when one is set", async () => {
    const { request } = setup({ token: "s3cret" });
    expect((await request("GET", "/healthz")).status).toBe(200);
    for (const headers of [
      {},
      { authorization: "Bearer wrong" },
      { authorization: "s3cret" },
      { authorization: "Bearer " },
    ] as Record<string, string>[]) {
      const response = await request("GET", "/v1/processes", undefined, headers);
      expect(response.status).toBe(401);
      expect((await bodyOf(response)).error.code).toBe("E_API_UNAUTHORIZED");
    }
    expect((await request("GET", "/v1/processes", undefined, { authorization: "Bearer s3cret" })).status).toBe(200);
  });

  it("GET /v1/processes lists live instances with pid and status", async () => {
    const { request } = setup();
    await request("POST", "/v1/events", { input: "x" });
    await Bun.sleep(0);
    const body = await bodyOf(await request("GET", "/v1/processes"));
    expect(body.processes).toEqual([
      expect.objectContaining({
        kind: "agent",
        agent: "a",
        instanceKey: "test-swarm",
        pid: expect.any(Number),
        status: "processing",
        restarts: 0,
        consecutiveCrashes: 0,
      }),
    ]);
  });

  it("GET /v1/instances/:agent/:instanceKey/events reads the instance's runtime events", async () => {
    const { request, orchestrator } = setup();
    const spans = { traceId: "t", spanId: "s", turnId: "turn-1", eventId: "evt-1", agent: "a", instanceKey: "k 1" };
    const started = {
      type: "turn.started",
      ...spans,
      at: "2026-01-01T00:00:00.000Z",
      data: {},
    } as unknown as RuntimeEvent;
    const completed = { ...started, type: "turn.completed" } as RuntimeEvent;
    orchestrator.store.appendRuntimeEvents(orchestrator.swarm.instanceKey, [started, completed]);
    const body = await bodyOf(await request("GET", "/v1/instances/a/k%201/events"));
    expect(body).toEqual({ agent: "a", instanceKey: "k 1", events: [started, completed], cursor: expect.any(Number) });
    expect((await bodyOf(await request("GET", "/v1/instances/a/k%201/events?limit=1"))).events).toEqual([completed]);
    // Following: only what came after the cursor, and the same cursor back while nothing new came.
    const later = { ...started, type: "turn.failed", turnId: "turn-2" } as RuntimeEvent;
    orchestrator.store.appendRuntimeEvents(orchestrator.swarm.instanceKey, [later]);
    const next = await bodyOf(await request("GET", `/v1/instances/a/k%201/events?after=${body.cursor}`));
    expect(next.events).toEqual([later]);
    expect(await bodyOf(await request("GET", `/v1/instances/a/k%201/events?after=${next.cursor}`))).toEqual({
      agent: "a",
      instanceKey: "k 1",
      events: [],
      cursor: next.cursor,
    });
    expect((await request("GET", "/v1/instances/a/nobody/events")).status).toBe(404);
    expect((await request("GET", "/v1/instances/zed/k/events")).status).toBe(404);
  });

  it("POST /v1/restart reports validation issues with 422 and accepts a valid bundle with 202", async () => {
    let valid = false;
    const { request } = setup({
      restart: async () =>
        valid
          ? { accepted: true, issues: [] }
          : {
              accepted: false,
              issues: [{ code: "E_CONFIG_SCHEMA_INVALID", path: "goondan.yaml#1.spec", message: "bad" }],
            },
    });
    const refused = await request("POST", "/v1/restart", {});
    expect(refused.status).toBe(422);
    expect(await bodyOf(refused)).toMatchObject({
      error: { code: "E_CONFIG_INVALID" },
      issues: [{ code: "E_CONFIG_SCHEMA_INVALID" }],
    });
    valid = true;
    expect((await request("POST", "/v1/restart", "")).status).toBe(202);
  });

  it("POST /v1/restart refuses an agent not in the swarm with 404 E_AGENT_NOT_FOUND naming the swarm's agents, and restarts nothing", async () => {
    const asked: unknown[] = [];
    const { request } = setup({ restart: async (restart) => (asked.push(restart), { accepted: true, issues: [] }) });
    const refused = await request("POST", "/v1/restart", { agent: "nosuch" });
    expect(refused.status).toBe(404);
    const body = await bodyOf(refused);
    expect(body.error.code).toBe("E_AGENT_NOT_FOUND");
    expect(body.error.message).toContain("a, b");
    expect(asked).toEqual([]);
    expect((await request("POST", "/v1/restart", { agent: "b" })).status).toBe(202);
  });

  describe("POST /v1/restart instanceKey", () => {
    it("passes the agent, instanceKey and fresh on and says the instance is known", async () => {
      const asked: unknown[] = [];
      const { request } = setup({ restart: async (restart) => (asked.push(restart), { accepted: true, issues: [] }) });
      expect((await request("POST", "/v1/events", { input: "hi", agent: "b", instanceKey: "user-1" })).status).toBe(
        202,
      );
      const response = await request("POST", "/v1/restart", { agent: "b", instanceKey: "user-1", fresh: true });
      expect(response.status).toBe(202);
      expect(await bodyOf(response)).toEqual({
        accepted: true,
        issues: [],
        instance: { agent: "b", instanceKey: "user-1", known: true },
      });
      expect(asked).toEqual([{ reason: "POST /v1/restart", agent: "b", instanceKey: "user-1", fresh: true }]);
    });

    it("refuses an instanceKey without its agent with 400 E_API_BAD_REQUEST and restarts nothing", async () => {
      const asked: unknown[] = [];
      const { request } = setup({ restart: async (restart) => (asked.push(restart), { accepted: true, issues: [] }) });
      const refused = await request("POST", "/v1/restart", { instanceKey: "user-1", fresh: true });
      expect(refused.status).toBe(400);
      expect((await bodyOf(refused)).error.code).toBe("E_API_BAD_REQUEST");
      for (const instanceKey of ["", 7])
        expect((await request("POST", "/v1/restart", { agent: "b", instanceKey })).status).toBe(400);
      expect(asked).toEqual([]);
    });

    it("accepts an instance key the agent does not know, saying so and naming the agent's known instances", async () => {
      const asked: unknown[] = [];
      const { request } = setup({ restart: async (restart) => (asked.push(restart), { accepted: true, issues: [] }) });
      await request("POST", "/v1/events", { input: "hi", agent: "b", instanceKey: "user-1" });
      await request("POST", "/v1/events", { input: "hi", agent: "a", instanceKey: "other-agent" });
      const response = await request("POST", "/v1/restart", { agent: "b", instanceKey: "user-2", fresh: true });
      expect(response.status).toBe(202);
      expect((await bodyOf(response)).instance).toEqual({
        agent: "b",
        instanceKey: "user-2",
        known: false,
        agentInstances: ["user-1"],
      });
      expect(asked).toHaveLength(1);
    });
  });

  it("answers 503 E_ORCHESTRATOR_STOPPING once shutdown began", async () => {
    const { request, orchestrator } = setup();
    await orchestrator.shutdown({ reason: "test" });
    const response = await request("POST", "/v1/events", { input: "late" });
    expect(response.status).toBe(503);
    expect((await bodyOf(response)).error.code).toBe("E_ORCHESTRATOR_STOPPING");
  });
});

describe("serveHttpApi", () => {
  it("makes `goondan restart --agent nosuch` exit 1 naming the swarm's agents", async () => {
    const { orchestrator } = setup({});
    let asked = 0;
    const served = serveHttpApi({
      backend: backendOf(orchestrator, async () => (asked++, { accepted: true, issues: [] })),
      host: "127.0.0.1",
      port: 0,
    });
    try {
      const out = { stdout: "", stderr: "" };
      const io: CliIo = {
        stdout: (text) => (out.stdout += text),
        stderr: (text) => (out.stderr += text),
        env: {},
        cwd: process.cwd(),
      };
      expect(
        await main(["restart", "--agent", "nosuch", "--port", String(served.port), "--host", "127.0.0.1"], io),
      ).toBe(1);
      expect(out.stdout).toBe("");
      expect(out.stderr).toContain("nosuch");
      expect(out.stderr).toContain("a, b");
      expect(asked).toBe(0);
    } finally {
      await served.stop();
    }
  });

  it("binds 127.0.0.1 on a free port when asked for port 0", async () => {
    const { orchestrator } = setup();
    const served = serveHttpApi({ backend: backendOf(orchestrator), host: "127.0.0.1", port: 0 });
    try {
      expect(served.port).toBeGreaterThan(0);
      const response = await fetch(`http://127.0.0.1:${served.port}/healthz`);
      expect(await response.json()).toEqual({ status: "ok" });
    } finally {
      await served.stop();
    }
  });
  it("answers a body far over the limit with the JSON 413, declared or chunked, not Bun's empty one", async () => {
    const { orchestrator } = setup();
    const served = serveHttpApi({ backend: backendOf(orchestrator), host: "127.0.0.1", port: 0, maxBodyBytes: 100 });
    try {
      const big = JSON.stringify({ input: "x".repeat(10_000) });
      const chunked = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      });
      for (const body of [big, chunked]) {
        const response = await fetch(`http://127.0.0.1:${served.port}/v1/events`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          duplex: "half",
        } as RequestInit);
        expect(response.status).toBe(413);
        expect(await response.json()).toMatchObject({
          error: { code: "E_API_BODY_TOO_LARGE", message: expect.stringContaining("100") },
        });
      }
      expect(await orchestrator.instances()).toEqual([]);
    } finally {
      await served.stop();
    }
  });
});

describe("GET /v1/instances", () => {
  it("lists live instances and the ones only on disk, with decoded names", async () => {
    const { request, orchestrator } = setup();
    await seedConversation({ orchestrator } as RoutingSetup, "b", "user:42");
    await request("POST", "/v1/events", { input: "x" });
    const body = await bodyOf(await request("GET", "/v1/instances"));
    expect(body.instances).toEqual([
      expect.objectContaining({ agent: "a", instanceKey: "test-swarm", queued: 1 }),
      {
        agent: "b",
        instanceKey: "user:42",
        status: "terminated",
        queued: 0,
        messages: 1,
        pendingResults: 0,
        updatedAt: expect.any(Number),
      },
    ]);
  });
});
