/**
 * One instance's conversation in the agent child: the messages, loaded once when the child starts (hydrated from
 * the store) and changed only through MessageEvents, which are applied in memory at once and kept as the changes
 * not yet committed. A commit takes them (`takeChanges`) and hands them to the store in one transaction, so a turn
 * costs what it adds, never a rewrite of the history.
 *
 * The child holds only the conversation the model sees. A message removed or truncated with `archive: true` leaves
 * memory but stays in the store's history, and `older()` reads that history back a page at a time from the store:
 * the child's memory is bounded by what the model sees, not by how long the instance has lived.
 */
import type { Message, MessageEvent, OlderMessagesQuery } from "../../protocol/conversation.ts";

/** Reads a page of the stored history (the instance link in production). */
export type OlderMessagesReader = (query: OlderMessagesQuery) => Promise<Message[]>;

export class Conversation {
  private list: Message[];
  private readonly ids: Set<string>;
  private unsaved: MessageEvent[] = [];
  private changedRevision = 0;

  private readonly readOlder: OlderMessagesReader;

  /** `older`: where the stored history is read from (default: nowhere, an instance with no store behind it). */
  constructor(messages: readonly Message[] = [], options: { older?: OlderMessagesReader } = {}) {
    this.list = [...messages];
    this.ids = new Set(this.list.map((message) => message.id));
    this.readOlder = options.older ?? (async () => []);
  }

  /**
   * A page of the instance's stored history, oldest first: the `limit` (default 50, at most 500) messages just
   * before message `before` (default: the newest), archived and current alike, as committed so far. Changes of the
   * running turn that are not committed yet are in `messages` only.
   */
  older(query: OlderMessagesQuery = {}): Promise<Message[]> {
    return this.readOlder(query);
  }

  /** The conversation as it stands now (every change applied, committed or not). */
  get messages(): readonly Message[] {
    return this.list;
  }

  /**
   * Goes up with every change other than an append (a replace, remove or truncate): while it stays the same, the
   * messages seen before are still there, in order, unchanged (model-prompt.ts keeps their conversions).
   */
  get revision(): number {
    return this.changedRevision;
  }

  /** True when a message of this id is in the conversation. */
  has(id: string): boolean {
    return this.ids.has(id);
  }

  emit(event: MessageEvent): void {
    switch (event.type) {
      case "append":
        if (this.ids.has(event.message.id)) return;
        this.list.push(event.message);
        this.ids.add(event.message.id);
        break;
      case "replace": {
        const index = this.list.findIndex((message) => message.id === event.targetId);
        if (index < 0) return;
        this.ids.delete(event.targetId);
        this.list[index] = event.message;
        this.ids.add(event.message.id);
        this.changedRevision += 1;
        break;
      }
      case "remove": {
        if (!this.ids.has(event.targetId)) return;
        this.list = this.list.filter((message) => message.id !== event.targetId);
        this.ids.delete(event.targetId);
        this.changedRevision += 1;
        break;
      }
      case "truncate":
        this.list = [];
        this.ids.clear();
        this.changedRevision += 1;
        break;
    }
    this.unsaved.push(event);
  }

  /** The changes since the last commit, handed over to be committed (and forgotten here). */
  takeChanges(): MessageEvent[] {
    const changes = this.unsaved;
    this.unsaved = [];
    return changes;
  }

  /** Forgets the changes since the last commit (an aborted turn: nothing said after the abort is kept). */
  dropChanges(): void {
    this.unsaved = [];
  }
}
