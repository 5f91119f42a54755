/**
 * What a stream sent, kept so a client that lost it can resume it with `Last-Event-ID`: every message of the stream
 * in order, as the SSE text that went out with its `id` (the stream's prefix and the message's number: `1`, `2`, … for
 * a streamed `POST /v1/events`; `<eventId>:1`, … for an AG-UI run and an A2A stream). Kept whether or not the client is
 * still there (the turn goes on without it), in memory, for the newest `maxStreams` streams; a resume replays the
 * messages after the id, then the live ones to the end, none twice. What an orchestrator restart forgets, each
 * route answers from the store as it can.
 */
import type { SseWriter } from "./sse-stream.ts";

/** How many streams keep their messages. */
export const REPLAY_LOG_STREAMS = 500;

export interface ReplayedMessage {
  /** Its number in the stream, 1 first. */
  number: number;
  /** The SSE text that went out, `id:` line included. */
  text: string;
}

export class SseReplayRecord {
  readonly messages: ReplayedMessage[] = [];
  private done = false;
  private readonly listeners = new Set<(message: ReplayedMessage | undefined) => void>();

  /** `prefix`: what comes before each message's number in its id; `after`: the number before its first message. */
  constructor(
    readonly prefix: string,
    private readonly after = 0,
  ) {}

  get ended(): boolean {
    return this.done;
  }

  /** Keeps one message given as SSE text without an id (one or more `field: value` lines and the blank line). */
  append(text: string): ReplayedMessage {
    const number = this.after + this.messages.length + 1;
    const message = { number, text: `id: ${this.prefix}${number}\n${text}` };
    this.messages.push(message);
    for (const listener of this.listeners) listener(message);
    return message;
  }

  /** The stream has sent its last message. */
  end(): void {
    this.done = true;
    for (const listener of this.listeners) listener(undefined);
    this.listeners.clear();
  }

  /** Writes the messages after number `after` to `writer`, then each new one; resolves at the end or when the client goes. */
  async replay(after: number, writer: SseWriter): Promise<void> {
    for (const message of this.messages) if (message.number > after) writer.sendRaw(message.text);
    if (this.done) return;
    let ended: () => void = () => {};
    const end = new Promise<void>((resolve) => (ended = resolve));
    const listener = (message: ReplayedMessage | undefined) => (message ? writer.sendRaw(message.text) : ended());
    this.listeners.add(listener);
    await Promise.race([end, writer.closed]);
    this.listeners.delete(listener);
  }

  /** A writer that keeps every message it sends (a `sendRaw` chunk is one whole message) and forwards it with its id. */
  recording(writer: SseWriter): SseWriter {
    return {
      send: (message) =>
        writer.sendRaw(
          this.append(
            `${message.event === undefined ? "" : `event: ${message.event}\n`}data: ${JSON.stringify(message.data)}\n\n`,
          ).text,
        ),
      sendRaw: (chunk) => writer.sendRaw(this.append(chunk).text),
      closed: writer.closed,
      get isClosed() {
        return writer.isClosed;
      },
    };
  }
}

export class SseReplayLog {
  private readonly records = new Map<string, SseReplayRecord>();

  constructor(private readonly maxStreams = REPLAY_LOG_STREAMS) {}

  /** A new record for the stream `key`, its ids `<prefix><number>`, numbered from `after + 1`. */
  open(key: string, prefix = "", after = 0): SseReplayRecord {
    const record = new SseReplayRecord(prefix, after);
    this.records.set(key, record);
    // The oldest streams go first (a Map keeps insertion order).
    for (const old of this.records.keys()) {
      if (this.records.size <= this.maxStreams) break;
      this.records.delete(old);
    }
    return record;
  }

  get(key: string): SseReplayRecord | undefined {
    return this.records.get(key);
  }
}

/** A `Last-Event-ID` of the form `<key>:<number>` (AG-UI, A2A): the stream's key and the number, or undefined if not one. */
export function keyedId(header: string | undefined): { key: string; number: number } | undefined {
  if (header === undefined) return undefined;
  const colon = header.lastIndexOf(":");
  const number = header.slice(colon + 1);
  if (colon <= 0 || !/^\d{1,9}$/.test(number)) return undefined;
  return { key: header.slice(0, colon), number: Number(number) };
}
