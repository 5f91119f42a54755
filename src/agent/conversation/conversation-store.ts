/**
 * The event-sourced conversation of one instance (SPEC §3): `base.jsonl` holds committed messages, one per
 * line; `events.jsonl` holds the MessageEvents of the turn in progress, each appended and fsynced as it happens.
 * `fold()` at turn end writes base+events as the new base atomically, then clears events. Opening replays
 * base + events; torn or corrupt lines are skipped and reported through `skipped`, never thrown.
 */
import type { Message } from "../../tools/types.ts";
import { JsonlAppender, readJsonl, writeFileAtomic, writeJsonlAtomic, type SkippedLine } from "./jsonl-file.ts";
import { applyMessageEvent, type MessageEvent } from "./message-event.ts";

export interface StoredMessageEvent {
  turnId: string;
  eventId: string;
  event: MessageEvent;
}

export interface ConversationStoreOptions {
  basePath: string;
  eventsPath: string;
}

export class ConversationStore {
  private current: Message[];
  private readonly appender: JsonlAppender;
  private unfolded: StoredMessageEvent[];

  private constructor(
    private readonly options: ConversationStoreOptions,
    base: Message[],
    events: StoredMessageEvent[],
    readonly skipped: SkippedLine[],
  ) {
    this.current = events.reduce((messages, line) => applyMessageEvent(messages, line.event), base);
    this.unfolded = events;
    this.appender = new JsonlAppender(options.eventsPath);
  }

  static open(options: ConversationStoreOptions): ConversationStore {
    const base = readJsonl<Message>(options.basePath);
    const events = readJsonl<StoredMessageEvent>(options.eventsPath);
    const validEvents = events.records.filter((line) => typeof line === "object" && line !== null && typeof line.event?.type === "string");
    return new ConversationStore(options, base.records, validEvents, [...base.skipped, ...events.skipped]);
  }

  /** Every message, base plus the events of the turn in progress. */
  get messages(): readonly Message[] {
    return this.current;
  }

  /** Events not yet folded into base (those of an unfinished turn after a restart, or of the current turn). */
  get pendingEvents(): readonly StoredMessageEvent[] {
    return this.unfolded;
  }

  /** Applies an event and makes it durable before returning. */
  emit(event: MessageEvent, origin: { turnId: string; eventId: string }): void {
    const line: StoredMessageEvent = { turnId: origin.turnId, eventId: origin.eventId, event };
    this.appender.append(line);
    this.unfolded.push(line);
    this.current = applyMessageEvent(this.current, event);
  }

  /** Commits: the current messages become the new base (atomic), then events are cleared. */
  fold(): void {
    writeJsonlAtomic(this.options.basePath, this.current);
    this.appender.close();
    writeFileAtomic(this.options.eventsPath, "");
    this.unfolded = [];
  }

  close(): void {
    this.appender.close();
  }
}
