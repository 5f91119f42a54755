/**
 * The instance link over IPC (agent/instance/instance-link.ts): a commit goes to the orchestrator as `commit` with a
 * sequence number and resolves when `committed` comes back for it (the store has it durably), or rejects with the
 * store's error. Runtime events are held and sent as one `runtime_events` message, just before the next other message
 * the child sends (agent-child.ts calls `flushEvents`), or `holdMs` after the first one waiting: a turn's events then
 * ride with its commits, requests and result instead of waking the orchestrator a few times per step while the turn
 * prepares its model calls, and they still arrive in the order they were made, before whatever followed them. When
 * the channel is lost, waiting commits are rejected. A read of older messages goes as `older_messages` and resolves
 * with its `older_messages_result`; it is rejected too when the channel is lost.
 */
import { envelope, ORCHESTRATOR, type ChildMessage, type ParentToChild } from "../../protocol/ipc-messages.ts";
import type { Message, OlderMessagesQuery } from "../../protocol/conversation.ts";
import { isEmptyCommit, type CommitOptions, type InstanceCommit } from "../../protocol/instance-state.ts";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import { SystemError } from "../../shared/errors.ts";
import type { InstanceLink } from "../instance/instance-link.ts";

/** Default longest wait of a runtime event for a message to ride with (ms). */
export const RUNTIME_EVENT_HOLD_MS = 25;

export class IpcInstanceLink implements InstanceLink {
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private reads = 0;
  private readonly reading = new Map<
    string,
    { resolve: (messages: Message[]) => void; reject: (error: Error) => void }
  >();
  private events: RuntimeEvent[] = [];
  private failed: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly address: string,
    private readonly send: (message: ChildMessage) => void,
    private readonly holdMs = RUNTIME_EVENT_HOLD_MS,
  ) {}

  commit(commit: InstanceCommit, options: CommitOptions = {}): Promise<void> {
    if (isEmptyCommit(commit)) return Promise.resolve();
    if (this.failed !== undefined) return Promise.reject(new SystemError("E_STORE_UNREACHABLE", this.failed));
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      const sync = options.sync === false ? { sync: false as const } : {};
      this.send(envelope("commit", this.address, ORCHESTRATOR, { seq, ...commit, ...sync }));
    });
  }

  olderMessages(query: OlderMessagesQuery): Promise<Message[]> {
    if (this.failed !== undefined) return Promise.reject(new SystemError("E_STORE_UNREACHABLE", this.failed));
    const requestId = `older_${++this.reads}`;
    return new Promise((resolve, reject) => {
      this.reading.set(requestId, { resolve, reject });
      this.send(envelope("older_messages", this.address, ORCHESTRATOR, { requestId, ...query }));
    });
  }

  /** Feed `older_messages_result` messages here. */
  handleOlderMessages(answer: ParentToChild["older_messages_result"]): void {
    const reader = this.reading.get(answer.requestId);
    if (reader === undefined) return;
    this.reading.delete(answer.requestId);
    if (answer.error === undefined) reader.resolve(answer.messages ?? []);
    else reader.reject(new SystemError(answer.error.code, answer.error.message));
  }

  runtimeEvent(event: RuntimeEvent): void {
    if (this.events.length === 0) this.timer = setTimeout(() => this.flushEvents(), this.holdMs);
    this.events.push(event);
  }

  /** Sends the runtime events gathered so far now (before any other message, so they arrive first). */
  flushEvents(): void {
    const message = this.takeEvents();
    if (message !== undefined) this.send(message);
  }

  /** The runtime events gathered so far as one message, for the caller to send (ahead of its own); none are kept. */
  takeEvents(): ChildMessage | undefined {
    if (this.events.length === 0) return undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    const events = this.events;
    this.events = [];
    return envelope("runtime_events", this.address, ORCHESTRATOR, { events });
  }

  /** Feed `committed` messages here. */
  handleCommitted(answer: ParentToChild["committed"]): void {
    const waiter = this.waiting.get(answer.seq);
    if (waiter === undefined) return;
    this.waiting.delete(answer.seq);
    if (answer.error === undefined) waiter.resolve();
    else waiter.reject(new SystemError(answer.error.code, answer.error.message));
  }

  /** The orchestrator is gone: nothing can be committed any more. */
  failAll(reason: string): void {
    this.failed = reason;
    for (const waiter of this.waiting.values()) waiter.reject(new SystemError("E_STORE_UNREACHABLE", reason));
    this.waiting.clear();
    for (const reader of this.reading.values()) reader.reject(new SystemError("E_STORE_UNREACHABLE", reason));
    this.reading.clear();
  }
}
