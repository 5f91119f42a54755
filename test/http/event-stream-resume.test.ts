/**
 * Resuming a streamed `POST /v1/events` (`GET /v1/events/:eventId/stream` with `Last-Event-ID`) over a real
 * Orchestrator with the fake spawner: every message carries an id (1, 2, …); a client that lost the stream gets the
 * messages after its last id, none twice, then the live ones to `done`; an event this orchestrator did not stream is
 * answered from the store; a bad id is 400 and an unknown event 404. Read with the typed client's SSE reader.
 */
import { describe, expect, it } from "bun:test";
import { sseMessages } from "../../src/client/sse-messages.ts";
import { EVENT_ID_HEADER } from "../../src/http/routes/events.ts";
import { apiFixture, bodyOf } from "./api-fixture.ts";

async function take(response: Response, count: number) {
  const taken: { id?: string; event?: string; data: unknown }[] = [];
  const messages = sseMessages(response.body!);
  for await (const message of messages) {
    taken.push({ id: message.id, event: message.event, data: JSON.parse(message.data) });
    if (taken.length === count) break;
  }
  return taken;
}

describe("GET /v1/events/:eventId/stream", () => {
  it("resumes a stream after its last id: the messages missed, then the live ones to done, none twice", async () => {
    const { request, spawner } = apiFixture();
    const response = await request("POST", "/v1/events", { input: "hi", instanceKey: "k", stream: true });
    const eventId = response.headers.get(EVENT_ID_HEADER)!;
    while (spawner.of("a", "k").length === 0 || spawner.latest("a", "k").events().length === 0) await Bun.sleep(2);
    const child = spawner.latest("a", "k");
    child.emit("turn_delta", { eventId, text: "one " });
    const first = await take(response, 1);
    expect(first).toEqual([{ id: "1", event: "delta", data: { text: "one " } }]);
    // The client is gone; the turn goes on and its messages are kept.
    child.emit("turn_delta", { eventId, text: "two " });
    child.emit("turn_delta", { eventId, text: "three" });

    const resumed = await request("GET", `/v1/events/${eventId}/stream`, undefined, { "last-event-id": "1" });
    expect(resumed.status).toBe(200);
    const reading = take(resumed, 3);
    child.reply({ event: child.lastEvent(), response: "one two three" });
    const rest = await reading;
    expect(rest.map((message) => [message.id, message.event])).toEqual([
      ["2", "delta"],
      ["3", "delta"],
      ["4", "done"],
    ]);
    expect(rest.slice(0, 2).map((message) => (message.data as { text: string }).text)).toEqual(["two ", "three"]);
    expect(rest[2]!.data).toMatchObject({ status: "ok", response: "one two three", eventId });

    // From the start again, after it ended: the whole stream, and it closes.
    const whole = await take(await request("GET", `/v1/events/${eventId}/stream`), 4);
    expect(whole.map((message) => message.id)).toEqual(["1", "2", "3", "4"]);
  });

  it("answers an event it did not stream from the store: done once it has an outcome", async () => {
    const { request, spawner } = apiFixture();
    const accepted = await bodyOf(await request("POST", "/v1/events", { input: "hi", instanceKey: "s" }));
    const resumed = await request("GET", `/v1/events/${accepted.eventId}/stream`, undefined, { "last-event-id": "3" });
    const reading = take(resumed, 2);
    while (spawner.of("a", "s").length === 0 || spawner.latest("a", "s").events().length === 0) await Bun.sleep(2);
    spawner.latest("a", "s").reply({ response: "stored" });
    const messages = await reading;
    // It had messages of a turn that had not ended: that turn is void, then the outcome.
    expect(messages.map((message) => [message.id, message.event])).toEqual([
      ["4", "restarted"],
      ["5", "done"],
    ]);
    expect(messages[1]!.data).toMatchObject({ status: "ok", response: "stored", eventId: accepted.eventId });
  });

  it("refuses a Last-Event-ID that is not a number with 400 and an unknown event with 404", async () => {
    const { request } = apiFixture();
    const bad = await request("GET", "/v1/events/evt_1/stream", undefined, { "last-event-id": "x" });
    expect(bad.status).toBe(400);
    expect((await bodyOf(bad)).error.code).toBe("E_API_BAD_REQUEST");
    const missing = await request("GET", "/v1/events/evt_nope/stream");
    expect(missing.status).toBe(404);
    expect((await bodyOf(missing)).error.code).toBe("E_API_EVENT_NOT_FOUND");
  });
});
