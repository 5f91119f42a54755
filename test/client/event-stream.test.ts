/**
 * The typed client's streamed send over a scripted fetch: a stream that breaks off before `done` is resumed by
 * `GET /v1/events/:eventId/stream` with the id of the last message read, and the caller sees every message once; a
 * refusal of the resume is thrown with its code; without an event id there is nothing to resume.
 */
import { describe, expect, it } from "bun:test";
import { createClient, GoondanApiError, type StreamEvent } from "../../src/client/index.ts";

const sse = (text: string, headers: Record<string, string> = {}) =>
  new Response(text, { status: 200, headers: { "content-type": "text/event-stream", ...headers } });

function scripted(answers: Array<(url: string, init: RequestInit) => Response>) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetch = async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`fetch called once too often: ${url}`);
    return answer(url, init);
  };
  return { calls, fetch };
}

describe("client.send with stream: true", () => {
  it("resumes a stream that broke off with the last id, and yields every message once", async () => {
    const { calls, fetch } = scripted([
      () =>
        sse(': open\n\nevent: delta\nid: 1\ndata: {"text":"Hel"}\n\n', {
          "x-goondan-event-id": "evt_1",
        }),
      () =>
        sse(
          'event: delta\nid: 2\ndata: {"text":"lo"}\n\nevent: done\nid: 3\ndata: {"status":"ok","response":"Hello","eventId":"evt_1"}\n\n',
        ),
    ]);
    const client = createClient({ baseUrl: "http://swarm.test/", token: "t", fetch });
    const seen: StreamEvent[] = [];
    for await (const event of client.send({ input: "hi" }, { stream: true, retryMs: 1 })) seen.push(event);
    expect(seen.map((event) => event.type)).toEqual(["delta", "delta", "done"]);
    expect(calls[0]!.url).toBe("http://swarm.test/v1/events");
    expect(JSON.parse(String(calls[0]!.init.body))).toEqual({ input: "hi", stream: true });
    expect(calls[1]!.url).toBe("http://swarm.test/v1/events/evt_1/stream");
    expect(calls[1]!.init.headers).toMatchObject({ "last-event-id": "1", authorization: "Bearer t" });
  });

  it("throws the refusal of a resume with its code", async () => {
    const { fetch } = scripted([
      () => sse('event: delta\nid: 1\ndata: {"text":"x"}\n\n', { "x-goondan-event-id": "evt_2" }),
      () =>
        new Response(JSON.stringify({ error: { code: "E_API_EVENT_NOT_FOUND", message: "no" } }), {
          status: 404,
          headers: { "content-type": "application/json" },
        }),
    ]);
    const events = createClient({ baseUrl: "http://swarm.test", fetch }).send(
      { input: "hi" },
      { stream: true, retryMs: 1 },
    );
    const error = await (async () => {
      for await (const _ of events);
    })().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GoondanApiError);
    expect((error as GoondanApiError).code).toBe("E_API_EVENT_NOT_FOUND");
  });

  it("does not resume with resume: false", async () => {
    const { fetch } = scripted([
      () => sse('event: delta\nid: 1\ndata: {"text":"x"}\n\n', { "x-goondan-event-id": "evt_3" }),
    ]);
    const events = createClient({ baseUrl: "http://swarm.test", fetch }).send(
      { input: "hi" },
      { stream: true, resume: false },
    );
    const error = await (async () => {
      for await (const _ of events);
    })().catch((thrown: unknown) => thrown);
    expect((error as { code?: string }).code).toBe("E_API_UNREACHABLE");
  });
});
