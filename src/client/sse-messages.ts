/**
 * Reads a `text/event-stream` body as its messages, with `eventsource-parser` (the kept SSE parser every runtime
 * shares): fetch's ReadableStream read by `getReader()` and decoded by TextDecoder, the only things a browser, Node 18+
 * and Bun all have. Comments (the server's `: open` and heartbeats) are skipped. Stops, releasing the body, when the
 * caller stops iterating.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

export type { EventSourceMessage };

export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parsed: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => void parsed.push(message) });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        parser.feed(decoder.decode());
        yield* parsed.splice(0);
        return;
      }
      parser.feed(decoder.decode(value, { stream: true }));
      yield* parsed.splice(0);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
