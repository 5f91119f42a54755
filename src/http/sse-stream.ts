/**
 * The API's one way to answer with a `text/event-stream` (hono's streamSSE): the connection may stay idle as long
 * as the stream lasts, a comment (`: open`) goes out at once so the client has the answer's headers before the first
 * message, another (`: heartbeat`) every `heartbeatMs` so proxies and clients see it is alive, and messages are written in order. A client that goes away only ends the writing: `run` learns of it from
 * `closed` (or `onClose`) and whatever it streams from (a turn, the swarm) goes on unaffected.
 */
import type { Context } from "hono";
import { streamSSE, type SSEMessage } from "hono/streaming";
import type { ApiEnv } from "./api-env.ts";

/** How often an idle stream says it is alive. */
export const SSE_HEARTBEAT_MS = 15_000;

export interface SseWriter {
  /**
   * Queues one message (its data as JSON; without `event`, a plain `message`; `id` what a reconnecting client sends
   * back as `Last-Event-ID`); ignored once the client is gone.
   */
  send(message: { event?: string; id?: string; data: unknown }): void;
  /** Queues text already in the stream's format (a message a protocol's own encoder wrote, OpenAI's `[DONE]`). */
  sendRaw(chunk: string): void;
  /** Resolves when the client went away (never, while it stays). */
  readonly closed: Promise<void>;
  readonly isClosed: boolean;
}

export function sseResponse(options: {
  c: Context<ApiEnv>;
  heartbeatMs?: number;
  run: (writer: SseWriter) => Promise<void>;
}): Response {
  const { c } = options;
  c.env.keepOpen();
  return streamSSE(c, async (stream) => {
    let gone = false;
    let markClosed: () => void = () => {};
    const closed = new Promise<void>((resolve) => (markClosed = resolve));
    stream.onAbort(() => {
      gone = true;
      markClosed();
    });
    // Every write waits for the one before: they reach the client in order, and the last before the stream closes.
    let written: Promise<unknown> = Promise.resolve();
    const write = (next: () => Promise<unknown>) => {
      if (!gone) written = written.then(next).catch(() => undefined);
    };
    // A server sends no headers before the first chunk: a comment at once tells the client the stream is open.
    write(() => stream.write(": open\n\n"));
    const heartbeat = setInterval(
      () => write(() => stream.write(": heartbeat\n\n")),
      options.heartbeatMs ?? SSE_HEARTBEAT_MS,
    );
    const writer: SseWriter = {
      send: (message) => {
        const sse: SSEMessage = {
          ...(message.event === undefined ? {} : { event: message.event }),
          ...(message.id === undefined ? {} : { id: message.id }),
          data: JSON.stringify(message.data),
        };
        write(() => stream.writeSSE(sse));
      },
      sendRaw: (chunk) => write(() => stream.write(chunk)),
      closed,
      get isClosed() {
        return gone;
      },
    };
    try {
      await options.run(writer);
    } finally {
      clearInterval(heartbeat);
      await written;
    }
  });
}
