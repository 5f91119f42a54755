/**
 * What a streamed `POST /v1/events` sent, kept so a client that lost the stream can resume it
 * (`GET /v1/events/:eventId/stream` with `Last-Event-ID`): every message of the event's stream in order, each with
 * its number as its SSE `id` (1, 2, …), the last one `done` or `error`. Kept whether or not the client is still there
 * (the turn goes on without it), in memory, for the newest `maxEvents` streamed events; a resume within that replays
 * the messages after the id, then the live ones, none twice. What an orchestrator restart forgets the resume route
 * answers from the store (events.ts).
 */
import type { SseWriter } from "./sse-stream.ts";

/** How many streamed events keep their messages. */
export const STREAM_LOG_EVENTS = 500;

export interface LoggedMessage {
  id: string;
  event: string;
  data: unknown;
}

export class EventStreamRecord {
  readonly messages: LoggedMessage[] = [];
  private readonly listeners = new Set<(message: LoggedMessage) => void>();

  get ended(): boolean {
    const last = this.messages.at(-1)?.event;
    return last === "done" || last === "error";
  }

  append(message: { event?: string; data: unknown }): LoggedMessage {
    const logged = { id: String(this.messages.length + 1), event: message.event ?? "message", data: message.data };
    this.messages.push(logged);
    for (const listener of this.listeners) listener(logged);
    return logged;
  }

  /** The messages after `after` at once, then each new one, until the returned function is called. */
  follow(after: number, listener: (message: LoggedMessage) => void): () => void {
    for (const message of this.messages.slice(after)) listener(message);
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** A writer that records every message it sends and forwards it, with its id, to `writer`. */
  recording(writer: SseWriter): SseWriter {
    return {
      send: (message) => writer.send(this.append(message)),
      sendRaw: (chunk) => writer.sendRaw(chunk),
      closed: writer.closed,
      get isClosed() {
        return writer.isClosed;
      },
    };
  }
}

export class EventStreamLog {
  private readonly records = new Map<string, EventStreamRecord>();

  constructor(private readonly maxEvents = STREAM_LOG_EVENTS) {}

  open(eventId: string): EventStreamRecord {
    const record = new EventStreamRecord();
    this.records.set(eventId, record);
    // The oldest streams go first (a Map keeps insertion order).
    for (const key of this.records.keys()) {
      if (this.records.size <= this.maxEvents) break;
      this.records.delete(key);
    }
    return record;
  }

  get(eventId: string): EventStreamRecord | undefined {
    return this.records.get(eventId);
  }
}
