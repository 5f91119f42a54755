/**
 * What a stream of one event sent, kept so a client that lost it can resume it from memory while this orchestrator
 * runs: every message in order, as the SSE text that went out, with its stored position (stream-position.ts), which
 * is also its `id` (after the stream's prefix: `<key>:` for AG-UI and A2A). Kept whether or not the client is still
 * there (the turn goes on without it), for the newest `maxStreams` streams; a resume replays the messages past the
 * position, then the live ones to the end, none twice. The text a model streams is kept only here: once an
 * orchestrator restart forgot it, each route answers the same positions from the store.
 */
import type { SseWriter } from "./sse-stream.ts";
import { comparePositions, formatPosition, type StreamPosition } from "./stream-position.ts";

/** How many streams keep their messages. */
export const REPLAY_LOG_STREAMS = 500;

export interface ReplayedMessage {
  position: StreamPosition;
  /** The SSE text that went out, `id:` line included. */
  text: string;
}

export class SseReplayRecord {
  readonly messages: ReplayedMessage[] = [];
  private done = false;
  private readonly listeners = new Set<(message: ReplayedMessage | undefined) => void>();

  /** `prefix`: what comes before each message's position in its id. */
  constructor(readonly prefix: string) {}

  get ended(): boolean {
    return this.done;
  }

  /** The id of a message at `position`. */
  idOf(position: StreamPosition): string {
    return `${this.prefix}${formatPosition(position)}`;
  }

  /** Keeps one message given as SSE text without an id (one or more `field: value` lines and the blank line). */
  append(text: string, position: StreamPosition): ReplayedMessage {
    const message = { position, text: `id: ${this.idOf(position)}\n${text}` };
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

  /** Writes the messages past `after` to `writer`, then each new one; resolves at the end or when the client goes. */
  async replay(after: StreamPosition, writer: SseWriter): Promise<void> {
    for (const message of this.messages)
      if (comparePositions(message.position, after) > 0) writer.sendRaw(message.text);
    if (this.done) return;
    let ended: () => void = () => {};
    const end = new Promise<void>((resolve) => (ended = resolve));
    const listener = (message: ReplayedMessage | undefined) => (message ? writer.sendRaw(message.text) : ended());
    this.listeners.add(listener);
    await Promise.race([end, writer.closed]);
    this.listeners.delete(listener);
  }

  /** Sends `message` (its data as JSON) to `writer` at `position`, keeping it. */
  send(writer: SseWriter, message: { event?: string; data: unknown }, position: StreamPosition): void {
    const event = message.event === undefined ? "" : `event: ${message.event}\n`;
    writer.sendRaw(this.append(`${event}data: ${JSON.stringify(message.data)}\n\n`, position).text);
  }

  /** Sends text already in the stream's format (a protocol's own encoder wrote it: one whole message) at `position`. */
  sendRaw(writer: SseWriter, chunk: string, position: StreamPosition): void {
    writer.sendRaw(this.append(chunk, position).text);
  }
}

export class SseReplayLog {
  private readonly records = new Map<string, SseReplayRecord>();

  constructor(private readonly maxStreams = REPLAY_LOG_STREAMS) {}

  /** A new record for the stream `key`, its ids `<prefix><position>`. */
  open(key: string, prefix = ""): SseReplayRecord {
    const record = new SseReplayRecord(prefix);
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
