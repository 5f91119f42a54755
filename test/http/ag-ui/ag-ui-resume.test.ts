/**
 * Resuming an AG-UI stream in process (over the fake spawner): every event has the id
 * `<eventId>:<cursor>.<offset>.<part>` (a stored position, increasing); the same RunAgentInput posted again with
 * `Last-Event-ID` gets the events past it, then the live ones to RUN_FINISHED, none twice, and no second message is
 * sent; a stream this orchestrator does not keep but whose event it knows is rebuilt from the store (what the client
 * lacks, then RUN_FINISHED); an id that is not an AG-UI id is 400, one naming nothing 404.
 */
import { describe, expect, it } from "bun:test";
import { sseMessages } from "../../../src/client/sse-messages.ts";
import { comparePositions, keyedPosition, type StreamPosition } from "../../../src/http/stream-position.ts";
import { apiFixture, bodyOf } from "../api-fixture.ts";

const positionOf = (id: string | undefined): StreamPosition => keyedPosition(id)?.position ?? { cursor: -1, offset: 0 };

const input = {
  threadId: "thread-r",
  runId: "run-r",
  messages: [{ id: "m1", role: "user", content: "hello" }],
};

async function take(response: Response, until: (type: string) => boolean) {
  const taken: Array<{ id: string | undefined; type: string; data: Record<string, unknown> }> = [];
  for await (const message of sseMessages(response.body!)) {
    const data = JSON.parse(message.data) as Record<string, unknown>;
    taken.push({ id: message.id, type: String(data.type), data });
    if (until(String(data.type))) break;
  }
  return taken;
}

describe("POST /v1/ag-ui with Last-Event-ID", () => {
  it("resumes after the last id: the events missed and the live ones to RUN_FINISHED, once each, sending nothing again", async () => {
    const { request, spawner } = apiFixture();
    const first = await request("POST", "/v1/ag-ui", input);
    while (spawner.of("a", "thread-r").length === 0) await Bun.sleep(2);
    const child = spawner.latest("a", "thread-r");
    while (child.events().length === 0) await Bun.sleep(2);
    const eventId = child.lastEvent().id;
    child.emit("turn_delta", { eventId, text: "Hi " });
    const started = await take(first, (type) => type === "TEXT_MESSAGE_CONTENT");
    expect(started[0]?.type).toBe("RUN_STARTED");
    expect(started[0]?.id).toMatch(new RegExp(`^${eventId}:\\d+\\.0\\.1$`));
    const last = started.at(-1)!.id!;

    // The client is gone; the run goes on and its events are kept.
    child.emit("turn_delta", { eventId, text: "there" });
    const resumed = await request("POST", "/v1/ag-ui", input, { "last-event-id": last });
    expect(resumed.status).toBe(200);
    const reading = take(resumed, (type) => type === "RUN_FINISHED" || type === "RUN_ERROR");
    child.reply({ event: child.lastEvent(), response: "Hi there" });
    const rest = await reading;
    const positions = [...started, ...rest].map((event) => positionOf(event.id));
    expect(
      positions.every((position, index) => index === 0 || comparePositions(position, positions[index - 1]!) > 0),
    ).toBe(true);
    expect(rest.at(-1)).toMatchObject({ type: "RUN_FINISHED", data: { outcome: { type: "success" } } });
    const text = [...started, ...rest]
      .filter((event) => event.type === "TEXT_MESSAGE_CONTENT")
      .map((event) => event.data.delta)
      .join("");
    expect(text).toBe("Hi there");
    // One event only: the resume sent nothing.
    expect(child.events().length).toBe(1);
  });

  it("rebuilds a stream it does not keep (an orchestrator restart forgot it) from the store: what the client lacks, then RUN_FINISHED", async () => {
    const { request, spawner } = apiFixture();
    const accepted = await bodyOf(await request("POST", "/v1/events", { input: "hi", instanceKey: "thread-r" }));
    // The client had RUN_STARTED only.
    const resumed = await request("POST", "/v1/ag-ui", input, { "last-event-id": `${accepted.eventId}:0.0.1` });
    const reading = take(resumed, (type) => type === "RUN_FINISHED" || type === "RUN_ERROR");
    while (spawner.of("a", "thread-r").length === 0 || spawner.latest("a", "thread-r").events().length === 0)
      await Bun.sleep(2);
    spawner.latest("a", "thread-r").reply({ response: "from the store" });
    const events = await reading;
    expect(events.map((event) => event.type)).toEqual([
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(events[1]!.data.delta).toBe("from the store");
    expect(events[3]).toMatchObject({
      id: expect.stringMatching(new RegExp(`^${accepted.eventId}:0\\.1\\.4$`)),
      data: { outcome: { type: "success" }, result: { response: "from the store" } },
    });
  });

  it("refuses an id that is not an AG-UI id with 400 and one naming nothing with 404", async () => {
    const { request } = apiFixture();
    const bad = await request("POST", "/v1/ag-ui", input, { "last-event-id": "12" });
    expect(bad.status).toBe(400);
    expect((await bodyOf(bad)).error.code).toBe("E_API_BAD_REQUEST");
    const missing = await request("POST", "/v1/ag-ui", input, { "last-event-id": "evt_nope:3.0.1" });
    expect(missing.status).toBe(404);
    expect((await bodyOf(missing)).error.code).toBe("E_AG_UI_RUN_NOT_FOUND");
  });
});
