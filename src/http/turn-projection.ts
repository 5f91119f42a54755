/**
 * One event's turn as a resumable stream (stream-position.ts): what its client is sent, and the stored position of
 * each message, computed the same way live and from the store, so a stream cut by a dropped connection or an
 * orchestrator restart continues with no gap and no double.
 *
 * Its input is the stored runtime events of the event's trace, in cursor order, and live, the text its model streams.
 * Each message is at `<cursor>.<chars>`: the newest stored event of the trace covered, and the characters of reply
 * text the client holds since the last `restarted`.
 * - a `tool.*` event is a tool message (its own turn's calls and those of the turns it delegated to), at its cursor;
 * - streamed text is a delta, the characters counted on;
 * - a `model.completed` of the event's own turn holds the whole text of that model call: whatever of it the client
 *   does not hold yet is a delta at its cursor (all of it for a Model that does not stream, or a client that resumes
 *   from the store). Live, a call its Model streamed is left to its deltas: the child sends the text it gathered in
 *   the last moment after the call's events, so some of it comes after this event;
 * - a `model.retried` of its own turn, or its turn starting again (the event delivered again after a crash or a
 *   restart), voids the text: `restarted` at that event's cursor, the count back to 0 (nothing is sent while the
 *   client holds no text). The child also flags its next text `restarted`; text between the two is the failed
 *   attempt's and is dropped.
 * - the last message (`done`, `error`) is one past the text of the completed calls at the newest cursor (and past
 *   the message before it), so its id is its own and the same live and from the store.
 * A resume from a position reads the trace from the stream's start, handing what lies before the position on as
 * `silent` (a consumer that keeps state, AG-UI's run, takes it without sending), then what follows; a consumer sends
 * only what lies past the client's position.
 */
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import { type ToolProgress, toolProgressOf } from "../protocol/turn-progress.ts";
import type { StoredRuntimeEvent } from "../store/store.ts";
import { messageText } from "../agent/conversation/message-factory.ts";
import type { ApiBackend } from "./api-backend.ts";
import { comparePositions, type StreamPosition } from "./stream-position.ts";

/** What a live turn streams besides its stored events: its text, and the restarts that void it. */
export type LiveText = { kind: "delta"; text: string } | { kind: "restarted"; reason: "retry" | "redelivered" };

export type TurnMessage =
  | { kind: "tool"; progress: ToolProgress }
  | { kind: "delta"; text: string }
  | { kind: "restarted"; reason: "retry" | "redelivered" };

/** `silent`: a message before the client's position, which it holds already (for a consumer that keeps state). */
export type TurnEmit = (message: TurnMessage, position: StreamPosition, silent: boolean) => void | Promise<void>;

export class TurnProjection {
  private cursor: number;
  /** Characters of reply text the client holds since the last reset. */
  private held = 0;
  /** Characters of the completed model calls of its own turn since the last reset. */
  private completed = 0;
  private ownTurns = 0;
  /** Its own turn's last end was a hold for approvals: the next start goes on with it, no restart. */
  private heldForApproval = false;
  /** Live text was sent in this delivery: the child flags its next text after a retry. */
  private liveSent = false;
  private awaitingLiveRestart = false;
  private lastSent: StreamPosition | undefined;
  /** A resume: counts (and emits silently) up to the client's position, then sends. */
  private resumeAt: StreamPosition | undefined;
  /** Fed the turn's live text besides its stored events (not a resume from the store). */
  private readonly fedLive: boolean;

  constructor(
    private readonly options: {
      backend: ApiBackend;
      eventId: string;
      emit: TurnEmit;
      /** The stream's first cursor: the trace's events up to it are not the stream's. */
      start: number;
      /** A resume: the client's position. */
      resumeAt?: StreamPosition;
    },
  ) {
    this.cursor = options.start;
    this.resumeAt = options.resumeAt;
    this.fedLive = options.resumeAt === undefined;
  }

  /** Where the stream stands: the position of the last message sent. */
  get position(): StreamPosition {
    return { cursor: this.cursor, offset: this.held };
  }

  /**
   * The last message's position: one past the text of the completed model calls at the newest cursor (so the same
   * live and from the store), and past the last message sent.
   */
  get endPosition(): StreamPosition {
    const end = { cursor: this.cursor, offset: this.completed + 1 };
    const last = this.lastSent;
    return last === undefined || comparePositions(end, last) > 0 ? end : { ...last, offset: last.offset + 1 };
  }

  /** Whether the client holds the last message already (a resume with its id). */
  endedFor(position: StreamPosition): boolean {
    return comparePositions(position, this.endPosition) >= 0;
  }

  /** The cursor of the newest stored event taken. */
  get lastCursor(): number {
    return this.cursor;
  }

  /** One stored event of the trace, after those before it. */
  async stored(row: StoredRuntimeEvent): Promise<void> {
    if (row.cursor <= this.cursor) return;
    const resumeAt = this.resumeAt;
    if (resumeAt !== undefined && row.cursor >= resumeAt.cursor) {
      // The first event at or past the client's position: from here the client's count of text is the one that
      // counts. A message at its very position it may hold in part (AG-UI writes a few events for one): consumers
      // send what lies past the position.
      this.resumeAt = undefined;
      this.cursor = Math.max(this.cursor, resumeAt.cursor);
      const before = this.held;
      this.held = resumeAt.offset;
      // Text it holds past the completed calls (streamed live before the restart) opens what a consumer keeps open.
      if (this.held > before) await this.emitSilent({ kind: "delta", text: "\u2026".repeat(this.held - before) });
    }
    const sending = this.resumeAt === undefined;
    this.cursor = row.cursor;
    const { event } = row;
    const tool = toolProgressOf(event);
    if (tool !== undefined) {
      await (sending ? this.emit({ kind: "tool", progress: tool }) : this.emitSilent({ kind: "tool", progress: tool }));
      return;
    }
    if (event.eventId !== this.options.eventId) return;
    if (event.type === "turn.started") {
      this.ownTurns += 1;
      if (this.ownTurns > 1 && !this.heldForApproval) await this.reset("redelivered", sending);
      this.heldForApproval = false;
    } else if (event.type === "turn.completed" || event.type === "turn.failed") {
      this.heldForApproval = event.data?.finishReason === "awaiting_approval";
    } else if (event.type === "model.retried") {
      await this.reset("retry", sending);
      this.awaitingLiveRestart = this.liveSent;
    } else if (event.type === "model.completed") {
      const text = await this.callText(event);
      this.completed += text.length;
      // Live, a call its Model streamed sends its text as deltas, some of which may come after this event.
      if (this.fedLive && event.data?.streamed === true) return;
      const missing = this.completed - this.held;
      if (missing > 0) {
        this.held = this.completed;
        const delta = { kind: "delta" as const, text: text.slice(Math.max(0, text.length - missing)) };
        await (sending ? this.emit(delta) : this.emitSilent(delta));
      }
    }
  }

  /** Live streamed text of its own turn (the child's `turn_delta`), and the restarts the orchestrator announces. */
  async live(progress: LiveText): Promise<void> {
    // A redelivery is announced by the turn's stored start, at its own cursor (no text comes before it).
    if (progress.kind === "restarted" && progress.reason === "redelivered") return;
    if (progress.kind === "restarted") {
      // Announced by the stored `model.retried` already; without one (its event lost), the flag voids the text.
      if (!this.awaitingLiveRestart) await this.reset("retry", true);
      this.awaitingLiveRestart = false;
      return;
    }
    if (this.awaitingLiveRestart || progress.text === "") return;
    this.liveSent = true;
    this.held += progress.text.length;
    await this.emit({ kind: "delta", text: progress.text });
  }

  private async reset(reason: "retry" | "redelivered", sending: boolean): Promise<void> {
    const voids = this.held > 0 || this.completed > 0;
    this.completed = 0;
    this.held = 0;
    // The child flags its next text after a retry when any text of the delivery left; a new delivery starts afresh.
    if (reason === "redelivered") this.liveSent = false;
    if (voids)
      await (sending ? this.emit({ kind: "restarted", reason }) : this.emitSilent({ kind: "restarted", reason }));
  }

  private emit(message: TurnMessage): void | Promise<void> {
    this.lastSent = this.position;
    return this.options.emit(message, this.position, false);
  }

  private emitSilent(message: TurnMessage): void | Promise<void> {
    return this.options.emit(message, this.position, true);
  }

  /** The text of one model call: as the event keeps it, or from the conversation when it was too long to keep. */
  private async callText(event: RuntimeEvent): Promise<string> {
    const output = (event.data as { output?: { text?: unknown } } | undefined)?.output;
    if (typeof output?.text === "string") return output.text;
    if (output === undefined || event.turnId === undefined) return "";
    const messages = await this.options.backend.orchestrator.messages(event.agent, event.instanceKey).catch(() => []);
    const step = messages.find(
      (message) =>
        message.source.type === "assistant" &&
        message.metadata.turnId === event.turnId &&
        message.metadata.stepIndex === event.stepIndex,
    );
    return step === undefined ? "" : messageText(step);
  }
}
