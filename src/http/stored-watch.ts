/**
 * `GET /v1/watch` on one host, resumable: every event goes out with its stored cursor as its SSE `id`, and a client that reconnects with `Last-Event-ID` (or `after=`) gets
 * exactly the events after it: no gap and no double, across a restart of the orchestrator too (the cursor is the
 * runtime-event table's own sequence, which never goes back). It reads what the store holds after the client's cursor,
 * then sends each live batch with the cursors the store gave it, once committed (no read back per batch).
 * The first message, `event: ready` `{cursor}`, carries the start as its id, so a client that drops before any event
 * came resumes from where it started, not from "now".
 */
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { StoredRuntimeEvent } from "../store/store.ts";
import type { ApiBackend } from "./api-backend.ts";
import type { SseWriter } from "./sse-stream.ts";
import { newestCursor } from "./turn-stream.ts";

export interface StoredWatchOptions {
  backend: ApiBackend;
  writer: SseWriter;
  filters: { agent?: string; instanceKey?: string; traceId?: string };
  /** Whether an event passes the filters the store does not apply (the type prefix). */
  matches: (event: RuntimeEvent) => boolean;
  /** Send the events after this cursor first; absent: only those stored from now on. */
  after?: number;
}

/** Streams until the client goes away. */
export async function streamStoredEvents(options: StoredWatchOptions): Promise<void> {
  const { backend, writer } = options;
  const heard: { rows: readonly StoredRuntimeEvent[]; kept: Promise<boolean> }[] = [];
  let wake: (() => void) | undefined;
  // Subscribed before the start cursor is read: nothing stored after it goes unheard.
  const stop = backend.orchestrator.onRuntimeEvents((rows, committed) => {
    heard.push({ rows, kept: committed() });
    wake?.();
  });
  try {
    let cursor = options.after ?? (await newestCursor(backend));
    // Where this watch starts, as an id: a client that drops before any event came resumes from here, not from "now".
    writer.send({ event: "ready", id: String(cursor), data: { cursor } });
    const send = (row: StoredRuntimeEvent) => {
      if (row.cursor <= cursor) return; // read from the store already
      cursor = row.cursor;
      if (options.matches(row.event)) writer.send({ event: "runtime", id: String(row.cursor), data: row.event });
    };
    // What was stored after the client's cursor; then each batch as it is committed, with the cursor it was given.
    for (const row of await backend.orchestrator.runtimeEvents({ ...options.filters, after: cursor })) send(row);
    while (!writer.isClosed) {
      const batch = heard.shift();
      if (batch === undefined) {
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), writer.closed]);
        wake = undefined;
        continue;
      }
      if (await batch.kept) for (const row of batch.rows) send(row);
    }
  } finally {
    stop();
  }
}
