/**
 * Resuming an A2A stream in process (over the fake spawner): every message of a SendStreamingMessage stream has the
 * id `<task id>:<cursor>.<n>`, its task's stored position; the same request posted again with `Last-Event-ID` gets
 * the messages past it and the new ones to the end, once each, without sending the message again; an id naming no
 * task is A2A's TaskNotFoundError as a JSON-RPC error.
 */
import { describe, expect, it } from "bun:test";
import { sseMessages } from "../../../src/client/sse-messages.ts";
import { comparePositions, keyedPosition } from "../../../src/http/stream-position.ts";
import { apiFixture, bodyOf } from "../api-fixture.ts";

const a2a = { "A2A-Version": "1.0" };
const send = {
  jsonrpc: "2.0",
  id: 7,
  method: "SendStreamingMessage",
  params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }], contextId: "ctx-r" } },
};

async function take(response: Response, count: number) {
  const taken: Array<{ id: string | undefined; data: Record<string, unknown> }> = [];
  for await (const message of sseMessages(response.body!)) {
    taken.push({ id: message.id, data: JSON.parse(message.data) });
    if (taken.length === count) break;
  }
  return taken;
}

const stateOf = (message: { data: Record<string, unknown> }) =>
  JSON.stringify(message.data).match(/TASK_STATE_\w+/)?.[0];

describe("POST /v1/a2a with Last-Event-ID", () => {
  it("resumes a SendStreamingMessage stream after the last id, once each, sending nothing again", async () => {
    const { request, spawner } = apiFixture();
    const first = await take(await request("POST", "/v1/a2a", send, a2a), 1);
    expect(first[0]!.id).toMatch(/^[0-9a-f-]+:0\.1$/);
    while (spawner.of("a", "ctx-r").length === 0 || spawner.latest("a", "ctx-r").events().length === 0)
      await Bun.sleep(2);
    const child = spawner.latest("a", "ctx-r");
    const resumed = await request("POST", "/v1/a2a", send, { ...a2a, "last-event-id": first[0]!.id! });
    expect(resumed.status).toBe(200);
    child.reply({ event: child.lastEvent(), response: "hi back" });
    const rest: Array<{ id: string | undefined; data: Record<string, unknown> }> = [];
    for await (const message of sseMessages(resumed.body!))
      rest.push({ id: message.id, data: JSON.parse(message.data) });
    const positions = [...first, ...rest].map((message) => keyedPosition(message.id)!.position);
    expect(positions[1]).toEqual({ cursor: 0, offset: 2 });
    expect(positions.every((at, index) => index === 0 || comparePositions(at, positions[index - 1]!) > 0)).toBe(true);
    expect(rest.map(stateOf)).toContain("TASK_STATE_COMPLETED");
    expect(child.events().length).toBe(1);
  });

  it("answers an id naming no kept stream with TaskNotFoundError", async () => {
    const { request } = apiFixture();
    const response = await request("POST", "/v1/a2a", send, { ...a2a, "last-event-id": "a2a-gone:3.1" });
    expect(await bodyOf(response)).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32001 } });
  });
});
