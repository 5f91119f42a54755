/**
 * `client.send(request, { stream: true })`: `POST /v1/events` with `"stream": true` as an async iterator of typed
 * messages, ending with `done` (the outcome) or `error`. When the stream breaks off before its last message (the
 * connection dropped, the orchestrator restarted) it is resumed by `GET /v1/events/:eventId/stream` with the id of
 * the last message read (a stored position), so no message is missed or seen twice, after an orchestrator restart
 * too: the server sends what the client lacks from the store (a turn cut by the restart runs again, after
 * `restarted`). Retries wait `retryMs`, doubling up to 5 s, for at most `resumeForMs`; a refusal is thrown at once.
 */
import type { EventStreamMessages } from "../protocol/api-wire.ts";
import type { JsonObject } from "../shared/json.ts";
import type { ApiCaller } from "./api-call.ts";
import { GoondanApiError, GoondanConnectionError } from "./client-error.ts";
import { pause } from "./pause.ts";
import { sseMessages } from "./sse-messages.ts";

export interface SendRequest {
  input: string;
  /** Default: the swarm's entry agent. */
  agent?: string;
  /** Default: the agent's default instance. */
  instanceKey?: string;
  metadata?: JsonObject;
  /** How long the API waits for the outcome (ms). Default: the Swarm's `requestTimeoutMs`. */
  timeoutMs?: number;
}

export interface StreamOptions {
  stream: true;
  signal?: AbortSignal;
  /** Resume a broken-off stream. Default true. */
  resume?: boolean;
  /** How long to keep trying to resume (ms). Default 60000. */
  resumeForMs?: number;
  /** First wait before a try (ms). Default 250. */
  retryMs?: number;
}

/** One message of a streamed answer, by its name: `delta`, `tool`, `restarted`, then `done` or `error`. */
export type StreamEvent = {
  [Name in keyof EventStreamMessages]: { type: Name; data: EventStreamMessages[Name] };
}[keyof EventStreamMessages];

/** The response header naming the accepted event of a streamed answer. */
const EVENT_ID_HEADER = "x-goondan-event-id";

export async function* streamEvent(api: ApiCaller, request: SendRequest, options: StreamOptions) {
  const { signal } = options;
  const opened = await api.stream({
    method: "POST",
    path: "/v1/events",
    body: { ...request, stream: true },
    ...(signal === undefined ? {} : { signal }),
  });
  const eventId = opened.headers.get(EVENT_ID_HEADER);
  let body: ReadableStream<Uint8Array> | undefined = opened.body;
  let lastId: string | undefined;
  let giveUpAt = 0;
  let waitMs = options.retryMs ?? 250;
  for (;;) {
    if (body !== undefined) {
      try {
        for await (const message of sseMessages(body)) {
          if (message.id !== undefined) lastId = message.id;
          if (message.event === undefined) continue;
          yield { type: message.event, data: JSON.parse(message.data) } as StreamEvent;
          if (message.event === "done" || message.event === "error") return;
        }
      } catch (error) {
        if (signal?.aborted) throw error;
      }
      body = undefined;
      giveUpAt = Date.now() + (options.resumeForMs ?? 60_000);
      waitMs = options.retryMs ?? 250;
    }
    if (eventId === null || options.resume === false || Date.now() > giveUpAt)
      throw new GoondanConnectionError(
        `the stream of event ${eventId ?? "?"}`,
        new Error("it ended before its last message"),
      );
    await pause(waitMs, signal);
    if (signal?.aborted) return;
    waitMs = Math.min(waitMs * 2, 5000);
    try {
      body = (
        await api.stream({
          path: `/v1/events/${encodeURIComponent(eventId)}/stream`,
          ...(lastId === undefined ? {} : { headers: { "last-event-id": lastId } }),
          ...(signal === undefined ? {} : { signal }),
        })
      ).body;
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof GoondanApiError && error.status < 500) throw error;
    }
  }
}
