/**
 * `POST /v1/events` with `"stream": true`, `GET /v1/events/:eventId` and `GET /v1/watch` over a real Orchestrator
 * with the fake spawner (the children are scripted: they send `turn_delta`, runtime events and a `turn_result`).
 * The same over real processes and a streaming loopback model: event-stream-run.integration.test.ts.
 */
import { describe, expect, it } from "bun:test";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import { EVENT_ID_HEADER } from "../../src/http/routes/events.ts";
import { sseReader } from "../helpers/sse-reader.ts";
import { serveHttpApi } from "../../src/http/http-api.ts";
import { apiFixture, backendOf, bodyOf } from "./api-fixture.ts";

const toolEvent = (type: RuntimeEvent["type"], agent: string, traceId: string, toolName: string): RuntimeEvent => ({
  type,
  at: new Date().toISOString(),
  agent,
  instanceKey: "k",
  traceId,
  spanId: "s",
  turnId: "t1",
  toolName,
  toolCallId: "c1",
});

describe("POST /v1/events with stream: true", () => {
  it("streams the turn's text, its tool calls and the delegated ones, a restart, then done with exactly the wait answer", async () => {
    const { request, spawner } = apiFixture();
    const response = await request("POST", "/v1/events", { input: "hi", instanceKey: "k", stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const eventId = response.headers.get(EVENT_ID_HEADER)!;
    expect(eventId).toStartWith("evt");
    const sse = sseReader(response);
    while (spawner.of("a", "k").length === 0 || spawner.latest("a", "k").events().length === 0) await Bun.sleep(2);
    const child = spawner.latest("a", "k");
    const event = child.lastEvent();
    child.emit("turn_delta", { eventId, text: "Hel" });
    expect((await sse.next()).data).toEqual({ text: "Hel" });
    child.emit("turn_delta", { eventId, text: "lo", restarted: true });
    child.emit("turn_delta", { eventId: "evt_other", text: "not mine" });
    child.emit("runtime_events", {
      events: [
        toolEvent("tool.called", "a", event.traceId, "agents__request"),
        toolEvent("tool.called", "b", event.traceId, "bash__exec"),
        toolEvent("tool.completed", "b", event.traceId, "bash__exec"),
        toolEvent("tool.called", "a", "another-trace", "x__y"),
      ],
    });
    child.reply({ event, response: "Hello" });
    const rest = await sse.rest();
    expect(rest.map((item) => item.event)).toEqual(["restarted", "delta", "tool", "tool", "tool", "done"]);
    expect(rest[0]!.data).toEqual({ reason: "retry" });
    expect(rest[1]!.data).toEqual({ text: "lo" });
    expect(rest[2]!.data).toEqual({
      phase: "started",
      agent: "a",
      instanceKey: "k",
      name: "agents__request",
      callId: "c1",
    });
    expect(rest[4]!.data).toEqual({
      phase: "ended",
      agent: "b",
      instanceKey: "k",
      name: "bash__exec",
      callId: "c1",
      status: "ok",
    });
    const fetched = await bodyOf(await request("GET", `/v1/events/${eventId}`));
    const { state, ...outcome } = fetched;
    expect(state).toBe("ok");
    expect(rest[5]!.data).toEqual(outcome);
    expect(outcome).toMatchObject({ status: "ok", response: "Hello", eventId });
  });

  it("keeps the turn going when the client goes away, and the result is fetched later", async () => {
    const { request, spawner } = apiFixture();
    const response = await request("POST", "/v1/events", { input: "hi", stream: true });
    const eventId = response.headers.get(EVENT_ID_HEADER)!;
    await response.body!.cancel();
    while (spawner.live().length === 0 || spawner.live()[0]!.events().length === 0) await Bun.sleep(2);
    expect((await bodyOf(await request("GET", `/v1/events/${eventId}`))).state).toBe("running");
    spawner.live()[0]!.reply({ response: "later" });
    for (let i = 0; i < 200 && (await bodyOf(await request("GET", `/v1/events/${eventId}`))).state === "running"; i++)
      await Bun.sleep(5);
    expect(await bodyOf(await request("GET", `/v1/events/${eventId}`))).toMatchObject({
      eventId,
      state: "ok",
      status: "ok",
      response: "later",
    });
  });

  it("ends with event: error E_AGENT_REQUEST_TIMEOUT and the eventId when the turn outlasts timeoutMs", async () => {
    const { request } = apiFixture();
    const response = await request("POST", "/v1/events", { input: "hi", stream: true, timeoutMs: 30 });
    const items = await sseReader(response).rest();
    expect(items.map((item) => item.event)).toEqual(["error"]);
    expect(items[0]!.data).toMatchObject({
      error: { code: "E_AGENT_REQUEST_TIMEOUT" },
      eventId: response.headers.get(EVENT_ID_HEADER),
    });
  });

  it("refuses like a wait: an unknown agent is 404 JSON, not a stream", async () => {
    const { request } = apiFixture();
    const response = await request("POST", "/v1/events", { input: "hi", agent: "zed", stream: true });
    expect(response.status).toBe(404);
    expect((await bodyOf(response)).error.code).toBe("E_AGENT_NOT_FOUND");
  });
});

describe("GET /v1/events/:eventId", () => {
  it("answers accepted before a child runs it, and 404 E_API_EVENT_NOT_FOUND for an unknown one", async () => {
    const { request } = apiFixture();
    const accepted = await bodyOf(await request("POST", "/v1/events", { input: "hi" }));
    expect(await bodyOf(await request("GET", `/v1/events/${accepted.eventId}`))).toMatchObject({
      eventId: accepted.eventId,
      state: expect.stringMatching(/^(accepted|running)$/),
    });
    const missing = await request("GET", "/v1/events/evt_nope");
    expect(missing.status).toBe(404);
    expect((await bodyOf(missing)).error.code).toBe("E_API_EVENT_NOT_FOUND");
    expect((await request("GET", "/v1/events/a%20b")).status).toBe(400);
    expect((await request("GET", "/v1/events/evt_1?x=1")).status).toBe(400);
  });
});

describe("GET /v1/watch", () => {
  it("streams runtime events as they come, filtered by agent and type prefix, with heartbeats", async () => {
    const { request, orchestrator, spawner } = apiFixture({ heartbeatMs: 20 });
    const response = await request("GET", "/v1/watch?agent=b&type=tool.");
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const sse = sseReader(response);
    await orchestrator.submit({ input: "x", agent: "b", instanceKey: "k" }).accepted;
    while (spawner.live().length === 0) await Bun.sleep(2);
    const child = spawner.live()[0]!;
    child.emit("runtime_events", {
      events: [
        toolEvent("turn.started", "b", "t", ""),
        toolEvent("tool.called", "b", "t", "bash__exec"),
        toolEvent("tool.called", "a", "t", "other"),
      ],
    });
    const first = await sse.next("runtime");
    expect(first.data).toMatchObject({ type: "tool.called", agent: "b", toolName: "bash__exec" });
    while (sse.comments.length === 0) await sse.more();
    await sse.cancel();
    expect(sse.seen.filter((item) => item.event === "runtime")).toHaveLength(1);
    expect(sse.comments.length).toBeGreaterThan(0);
  });

  it("replays stored events after a cursor first, then live ones, none twice", async () => {
    const { request, orchestrator, spawner } = apiFixture();
    await orchestrator.submit({ input: "x", agent: "b", instanceKey: "k" }).accepted;
    while (spawner.live().length === 0) await Bun.sleep(2);
    const child = spawner.live()[0]!;
    child.emit("runtime_events", {
      events: [toolEvent("tool.called", "b", "t", "one"), toolEvent("tool.called", "b", "t", "two")],
    });
    let stored = await orchestrator.runtimeEvents({});
    for (let i = 0; i < 100 && stored.length < 2; i++)
      stored = (await Bun.sleep(5), await orchestrator.runtimeEvents({}));
    const sse = sseReader(await request("GET", `/v1/watch?traceId=t&after=${stored[0]!.cursor}`));
    expect((await sse.next("runtime")).data.toolName).toBe("two");
    child.emit("runtime_events", { events: [toolEvent("tool.called", "b", "t", "three")] });
    expect((await sse.next("runtime")).data.toolName).toBe("three");
    await sse.cancel();
  });

  it("refuses an unknown filter with 400", async () => {
    const { request } = apiFixture();
    expect((await request("GET", "/v1/watch?colour=red")).status).toBe(400);
  });
});

describe("the streaming routes behind the token", () => {
  it("refuses /v1/watch, a streamed POST and GET /v1/events/:id without the bearer token, like every route", async () => {
    const { request } = apiFixture({ token: "s3cret" });
    expect((await request("GET", "/v1/watch")).status).toBe(401);
    expect((await request("GET", "/v1/events/evt_1")).status).toBe(401);
    expect((await request("POST", "/v1/events", { input: "x", stream: true })).status).toBe(401);
    expect(
      (await request("GET", "/v1/watch", undefined, { origin: "https://evil.example", authorization: "Bearer s3cret" }))
        .status,
    ).toBe(403);
    expect((await request("POST", "/v1/watch", {}, { authorization: "Bearer s3cret" })).status).toBe(405);
    const missing = await request("GET", "/v1/events/evt_1", undefined, { authorization: "Bearer s3cret" });
    expect((await bodyOf(missing)).error.code).toBe("E_API_EVENT_NOT_FOUND");
  });
});

describe("the streaming routes from an allowed origin", () => {
  it("answers a page of an allowed origin with CORS headers on the event stream, the event id header readable", async () => {
    const origin = "http://localhost:5173";
    const { request, spawner } = apiFixture({ allowedOrigins: [origin] });
    spawner.onSent = (child, message) => {
      if (message.type === "event") queueMicrotask(() => child.reply({ event: message.payload.event, response: "hi" }));
    };
    const response = await request("POST", "/v1/events", { input: "x", stream: true }, { origin });
    expect(response.headers.get("access-control-allow-origin")).toBe(origin);
    expect(response.headers.get("access-control-expose-headers")).toContain("x-goondan-event-id");
    expect((await sseReader(response).rest()).at(-1)).toMatchObject({ event: "done", data: { response: "hi" } });
    const watch = await request("GET", "/v1/watch", undefined, { origin });
    expect(watch.headers.get("access-control-allow-origin")).toBe(origin);
    await watch.body!.cancel();
  });
});

describe("event streams over real HTTP", () => {
  it("lets go of a watcher whose client disconnected, and the served API stops with streams open", async () => {
    const { orchestrator } = apiFixture();
    let watching = 0;
    const subscribe = orchestrator.onRuntimeEvents.bind(orchestrator);
    orchestrator.onRuntimeEvents = (listener) => {
      watching += 1;
      const stop = subscribe(listener);
      return () => {
        watching -= 1;
        stop();
      };
    };
    const counted = backendOf(orchestrator);
    const served = serveHttpApi({ backend: counted, host: "127.0.0.1", port: 0 });
    try {
      const abort = new AbortController();
      const response = await fetch(`http://127.0.0.1:${served.port}/v1/watch`, { signal: abort.signal });
      expect(response.status).toBe(200);
      expect(watching).toBe(1);
      abort.abort();
      for (let i = 0; i < 200 && watching > 0; i++) await Bun.sleep(10);
      expect(watching).toBe(0);
      // One left open: stopping the server does not wait for it.
      await fetch(`http://127.0.0.1:${served.port}/v1/watch`);
      expect(watching).toBe(1);
    } finally {
      await served.stop();
    }
  });
});
