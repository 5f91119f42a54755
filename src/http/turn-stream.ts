/**
 * The two ways an event's turn reaches a TurnProjection (turn-projection.ts), and so a stream:
 * - live (`LiveTurnFeed`): opened before the event is submitted, it hears the batches of runtime events (with the
 *   cursors the store gave them, committed before the client sees them) and the turn's streamed text in the order
 *   the orchestrator handles them, so positions follow the turn exactly and nothing is read back from the store.
 * - from the store (`storedTurn`): a stream resumed after the orchestrator that ran it forgot it (a restart): the
 *   trace's stored events from the start, then each new one as it is stored, until the event has a final state. A
 *   turn running again after a restart streams no text token by token: its text comes whole with each model call.
 */
import type { EventState } from "../protocol/api-wire.ts";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { TurnProgress } from "../protocol/turn-progress.ts";
import type { StoredRuntimeEvent } from "../store/store.ts";
import type { ApiBackend } from "./api-backend.ts";
import { isFinalState, readEventState } from "./event-final-state.ts";
import type { StreamPosition } from "./stream-position.ts";
import { type LiveText, type TurnEmit, TurnProjection } from "./turn-projection.ts";
import type { TokenUsage } from "./turn-usage.ts";
import { storeWake } from "./store-wake.ts";

type Item<T> =
  | { type: "stored"; rows: StoredRuntimeEvent[]; committed: Promise<boolean> }
  | { type: "live"; progress: LiveText }
  | { type: "end"; value: T };

/** The newest stored cursor of the swarm (0 when none): where a live stream or a watch "from now" starts. */
export async function newestCursor(backend: ApiBackend): Promise<number> {
  return (await backend.orchestrator.runtimeEvents({ limit: 1 })).at(-1)?.cursor ?? 0;
}

/** The trace of an accepted event (read back by its id). */
export async function traceOfEvent(backend: ApiBackend, eventId: string): Promise<string | undefined> {
  const found = await backend.orchestrator.acceptedEvents({ idPrefix: eventId, limit: 10 }).catch(() => []);
  return found.find((accepted) => accepted.event.id === eventId)?.event.traceId;
}

/** The trace's stored events after `after`, oldest first ([] when the store cannot answer). */
function traceRows(backend: ApiBackend, traceId: string, after: number): Promise<StoredRuntimeEvent[]> {
  return backend.orchestrator.runtimeEvents({ traceId, after }).catch(() => []);
}

export class LiveTurnFeed<T> {
  private readonly items: Item<T>[] = [];
  private wake: (() => void) | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly backend: ApiBackend,
    readonly traceId: string,
  ) {
    this.unsubscribe = backend.orchestrator.onRuntimeEvents((rows, committed) => {
      const own = rows.filter((row) => row.event.traceId === traceId);
      if (own.length === 0) return;
      // Shown (with the text after them) once committed: a crash of the orchestrator must not lose what a client saw.
      this.push({ type: "stored", rows: own, committed: committed() });
    });
  }

  /** The submit's `onProgress`: the turn's text and the child's restart flag (tool calls come from the store). */
  readonly onProgress = (progress: TurnProgress): void => {
    if (progress.kind === "delta") this.push({ type: "live", progress: { kind: "delta", text: progress.text } });
    else if (progress.kind === "restarted")
      this.push({ type: "live", progress: { kind: "restarted", reason: progress.reason } });
  };

  /** Streams the turn of `eventId` from `start` until `ended` settles; resolves with its value and where it stands. */
  async run(options: {
    eventId: string;
    start: number;
    emit: TurnEmit;
    ended: Promise<T>;
  }): Promise<{ value: T; projection: TurnProjection }> {
    const projection = new TurnProjection({
      backend: this.backend,
      eventId: options.eventId,
      emit: options.emit,
      start: options.start,
    });
    void options.ended.then((value) => this.push({ type: "end", value }));
    try {
      for (;;) {
        const item = await this.next();
        if (item.type === "end") return { value: item.value, projection };
        if (item.type === "live") await projection.live(item.progress);
        else if (await item.committed) for (const row of item.rows) await projection.stored(row);
      }
    } finally {
      this.close();
    }
  }

  close(): void {
    this.unsubscribe();
  }

  private push(item: Item<T>): void {
    this.items.push(item);
    this.wake?.();
  }

  private async next(): Promise<Item<T>> {
    while (this.items.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    return this.items.shift() as Item<T>;
  }
}

/** The usage of a turn end, added to `sum`. */
function addUsage(sum: TokenUsage, event: RuntimeEvent): void {
  if ((event.type !== "turn.completed" && event.type !== "turn.failed") || event.usage === undefined) return;
  sum.inputTokens += event.usage.inputTokens;
  sum.outputTokens += event.usage.outputTokens;
}

/**
 * Streams the turn of `eventId` from the store, from the client's position, until the event has a final state (or
 * the client goes): resolves with that state, where the stream stands, and the usage of every turn of its trace.
 */
export async function storedTurn(options: {
  backend: ApiBackend;
  eventId: string;
  traceId: string;
  from: StreamPosition;
  /** Where the stream began in the trace (a run that answered interrupts begins at the decision); default 0. */
  start?: number;
  emit: TurnEmit;
  closed: Promise<void>;
}): Promise<{ state: EventState | undefined; projection: TurnProjection; usage: TokenUsage }> {
  const { backend, eventId, traceId } = options;
  const projection = new TurnProjection({
    backend,
    eventId,
    emit: options.emit,
    start: options.start ?? 0,
    resumeAt: options.from,
  });
  const usage = { inputTokens: 0, outputTokens: 0 };
  const wake = storeWake(backend, options.closed);
  const catchUp = async () => {
    for (const row of await traceRows(backend, traceId, projection.lastCursor)) {
      addUsage(usage, row.event);
      await projection.stored(row);
    }
  };
  try {
    for (;;) {
      await catchUp();
      const state = await readEventState(backend, eventId);
      if (isFinalState(state)) {
        // Its last events were stored before its outcome: read what came meanwhile.
        await catchUp();
        return { state, projection, usage };
      }
      if (wake.gone) return { state: undefined, projection, usage };
      await wake.next();
    }
  } finally {
    wake.stop();
  }
}
