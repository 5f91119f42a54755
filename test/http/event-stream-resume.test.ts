/**
 * Resuming a streamed `POST /v1/events` (`GET /v1/events/:eventId/stream` with `Last-Event-ID`) over a real
 * Orchestrator with the fake spawner: every message carries its stored position as its id (`<cursor>.<characters
 * held>`); a client that lost the stream gets the messages past its last id, none twice, then the live ones to
 * `done`; an event this orchestrator did not stream is answered from the store at the same positions (the text of
 * each model call past what the client holds, `restarted` where the turn ran again); a bad id is 400 and an
 * unknown event 404. Read with the typed client's SSE reader.
 */
import { describe, expect, it } from "bun:test";
import { sseMessages } from "../../src/client/sse-messages.ts";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import { EVENT_ID_HEADER } from "../../src/http/routes/events.ts";
import { createApiHandler } from "../../src/http/http-api.ts";
import { apiFixture, backendOf, bodyOf } from "./api-fixture.ts";

async function take(response: Response, count: number) {
  const taken: { id?: string; event?: string; data: unknown }[] = [];
  const messages = sseMessages(response.body!);
  for await (const message of messages) {
    taken.push({ id: message.id, event: message.event, data: JSON.parse(message.data) });
    if (taken.length === count) break;
  }
  return taken;
}

/** A runtime event of the event's own turn (`eventId`), as a child sends it. */
const own = (type: RuntimeEvent["type"], event: { id: string; traceId: string }, data?: RuntimeEvent["data"]) => ({
  type,
  at: new Date().toISOString(),
  agent: "a",
  instanceKey: "s",
  traceId: event.traceId,
  spanId: "s1",
  turnId: "t1",
  eventId: event.id,
  stepIndex: 0,
  ...(data === undefined ? {} : { data }),
});

const position = (id: string | undefined): number[] => (id ?? "").split(".").map(Number);

describe("GET /v1/events/:eventId/stream", () => {
  it("resumes a stream after its last id: the messages missed, then the live ones to done, none twice", async () => {
    const { request, spawner } = apiFixture();
    const response = await request("POST", "/v1/events", { input: "hi", instanceKey: "k", stream: true });
    const eventId = response.headers.get(EVENT_ID_HEADER)!;
    while (spawner.of("a", "k").length === 0 || spawner.latest("a", "k").events().length === 0) await Bun.sleep(2);
    const child = spawner.latest("a", "k");
    child.emit("turn_delta", { eventId, text: "one " });
    const first = await take(response, 1);
    expect(first).toMatchObject([{ event: "delta", data: { text: "one " } }]);
    // `<cursor>.<characters held>`: no runtime event of the trace yet, 4 characters.
    const [cursor = 0, held] = position(first[0]!.id);
    expect(held).toBe(4);
    // The client is gone; the turn goes on and its messages are kept.
    child.emit("turn_delta", { eventId, text: "two " });
    child.emit("turn_delta", { eventId, text: "three" });

    const resumed = await request("GET", `/v1/events/${eventId}/stream`, undefined, { "last-event-id": first[0]!.id! });
    expect(resumed.status).toBe(200);
    const reading = take(resumed, 3);
    child.reply({ event: child.lastEvent(), response: "one two three" });
    const rest = await reading;
    expect(rest.map((message) => [message.id, message.event])).toEqual([
      [`${cursor}.8`, "delta"],
      [`${cursor}.13`, "delta"],
      [`${cursor}.14`, "done"],
    ]);
    expect(rest.slice(0, 2).map((message) => (message.data as { text: string }).text)).toEqual(["two ", "three"]);
    expect(rest[2]!.data).toMatchObject({ status: "ok", response: "one two three", eventId });

    // From the start again, after it ended: the whole stream, and it closes.
    const whole = await take(await request("GET", `/v1/events/${eventId}/stream`), 4);
    expect(whole.map((message) => message.id)).toEqual([first[0]!.id, ...rest.map((message) => message.id)]);
  });

  it("answers an event it did not stream from the store, at the same positions: text per model call, a re-run, done", async () => {
    const { request, spawner } = apiFixture();
    const accepted = await bodyOf(await request("POST", "/v1/events", { input: "hi", instanceKey: "s" }));
    while (spawner.of("a", "s").length === 0 || spawner.latest("a", "s").events().length === 0) await Bun.sleep(2);
    const child = spawner.latest("a", "s");
    const event = child.lastEvent();
    child.emit("runtime_events", {
      events: [own("turn.started", event), own("model.completed", event, { output: { text: "first try" } })],
    });
    // From the start: the text of the model call, whole.
    const fromStart = await request("GET", `/v1/events/${accepted.eventId}/stream`);
    const opening = await take(fromStart, 1);
    expect(opening).toMatchObject([{ event: "delta", data: { text: "first try" } }]);
    const [cursor = 0, held] = position(opening[0]!.id);
    expect(held).toBe(9);
    // The client held 5 characters of it: the rest; then the turn starts again (a redelivery) and ends.
    const resumed = await request("GET", `/v1/events/${accepted.eventId}/stream`, undefined, {
      "last-event-id": `${cursor}.5`,
    });
    const reading = take(resumed, 4);
    child.emit("runtime_events", {
      events: [
        own("turn.started", event),
        own("model.completed", event, { output: { text: "second" } }),
        own("turn.completed", event, { finishReason: "stop", response: "second" }),
      ],
    });
    child.reply({ event, response: "second" });
    const messages = await reading;
    expect(messages.map((message) => [message.event, message.data])).toMatchObject([
      ["delta", { text: " try" }],
      ["restarted", { reason: "redelivered" }],
      ["delta", { text: "second" }],
      ["done", { status: "ok", response: "second", eventId: accepted.eventId }],
    ]);
    const positions = messages.map((message) => position(message.id));
    expect(positions[0]).toEqual([cursor, 9]);
    expect(positions[1]![1]).toBe(0);
    expect(positions[2]![1]).toBe(6);
    expect(positions[3]).toEqual([(positions[2]?.[0] ?? 0) + 1, 7]);
    // With the id of done: nothing more.
    const after = await take(
      await request("GET", `/v1/events/${accepted.eventId}/stream`, undefined, { "last-event-id": messages[3]!.id! }),
      1,
    );
    expect(after).toEqual([]);
  });

  it("answers an event this node's store does not hold (on a cluster, another node's) with done alone, past the id", async () => {
    const { orchestrator, spawner, request } = apiFixture();
    const accepted = await bodyOf(await request("POST", "/v1/events", { input: "hi", instanceKey: "c" }));
    // A backend whose store never names the event, as a cluster node that did not accept it.
    const handle = createApiHandler({
      backend: {
        ...backendOf(orchestrator),
        orchestrator: Object.assign(Object.create(orchestrator), { acceptedEvents: async () => [] }),
      },
    });
    const resumed = await handle(
      new Request(`http://127.0.0.1/v1/events/${accepted.eventId}/stream`, { headers: { "last-event-id": "7.3" } }),
    );
    const reading = take(resumed, 1);
    while (spawner.of("a", "c").length === 0 || spawner.latest("a", "c").events().length === 0) await Bun.sleep(2);
    spawner.latest("a", "c").reply({ response: "elsewhere" });
    expect(await reading).toMatchObject([{ id: "7.4", event: "done", data: { status: "ok", response: "elsewhere" } }]);
  });

  it("refuses a Last-Event-ID that is not a position with 400 and an unknown event with 404", async () => {
    const { request } = apiFixture();
    const bad = await request("GET", "/v1/events/evt_1/stream", undefined, { "last-event-id": "3" });
    expect(bad.status).toBe(400);
    expect((await bodyOf(bad)).error.code).toBe("E_API_BAD_REQUEST");
    const missing = await request("GET", "/v1/events/evt_nope/stream");
    expect(missing.status).toBe(404);
    expect((await bodyOf(missing)).error.code).toBe("E_API_EVENT_NOT_FOUND");
  });
});
