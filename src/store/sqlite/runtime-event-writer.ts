/**
 * Writes runtime events to their table in batches. A request makes about seventeen of them across its turns, and
 * they arrive a few at a time; written as they came, each few was a transaction of its own, committed to the log with
 * its index pages, which cost the orchestrator more than the request's own state did. They are kept here instead and
 * written together, in one transaction that syncs nothing, `intervalMs` after the first one waiting (and at once
 * before anything reads or deletes them, so reads still see every event appended so far). Nothing waits on them:
 * a crash of the orchestrator loses at most the last `intervalMs` of them, which costs no correctness (Store). For
 * the same reason a batch the store cannot write (a full disk) is dropped and counted (`dropped`), never thrown.
 * It also deletes the oldest for retention (`prune`), keeping each swarm's row count once counted, so a batch of
 * deletions never recounts the table. The wait is 200 ms: the events' three indexes are keyed by instance, trace and
 * turn, so each batch writes about a page of each index per request in it, and the longer the batch the fewer pages
 * the log (and the next fsync a request waits on) takes per event; at 50 ms a sequential request wrote 13.9 pages of
 * them, at 200 ms 7.1 (bench/request-syncs.ts). `goondan logs --follow` on the store sees them that much later.
 *
 * Each event gets its cursor when it is appended, not when it is written, so that live readers (a streamed turn, a
 * watch) take the events with their cursors from the orchestrator instead of reading them back. Cursors come from
 * blocks reserved in `sqlite_sequence` and committed before any cursor of the block is given: a restart never
 * gives again a cursor a reader was handed, even one whose event the crash lost (a gap, which readers allow).
 */
import type { Database } from "bun:sqlite";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import type { RuntimeEventPruning, StoredRuntimeEvent } from "../store.ts";
import { deleteOldRuntimeEvents } from "./runtime-event-rows.ts";
import type { WriteBatch } from "./write-batch.ts";

/** Default wait before the events waiting are written (ms). */
export const RUNTIME_EVENT_WRITE_INTERVAL_MS = 200;
/** Cursors reserved at a time. */
const CURSOR_BLOCK = 4096;

export class RuntimeEventWriter {
  private waiting: { swarm: string; rows: readonly StoredRuntimeEvent[] }[] = [];
  /** The next cursor to give (0: not read from the database yet), and the last one reserved. */
  private nextCursor = 0;
  private reservedTo = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly intervalMs: number;
  /** Runtime events dropped because the store could not write them. */
  dropped = 0;
  /** Rows of each swarm counted so far, kept up by writes and deletions made here. */
  private readonly counts = new Map<string, number>();

  /** `batch`: the store's; the writer writes in its current transaction and commits it now for a reservation. */
  constructor(private readonly options: { db: Database; batch: WriteBatch; intervalMs?: number }) {
    this.intervalMs = options.intervalMs ?? RUNTIME_EVENT_WRITE_INTERVAL_MS;
  }

  /** Gives the events their cursors and keeps them to be written within `intervalMs`. */
  append(swarm: string, events: readonly RuntimeEvent[]): StoredRuntimeEvent[] {
    if (events.length === 0) return [];
    this.reserve(events.length);
    const rows = events.map((event) => ({ cursor: this.nextCursor++, event }));
    this.waiting.push({ swarm, rows });
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.write(), this.intervalMs);
      this.timer.unref?.();
    }
    return rows;
  }

  /** Makes sure `count` cursors from `nextCursor` on are reserved, committed, before they are given. */
  private reserve(count: number): void {
    if (this.nextCursor === 0) {
      const { seq } = this.options.db
        .query(
          `SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'runtime_events'), 0),
                      COALESCE((SELECT MAX(cursor) FROM runtime_events), 0)) AS seq`,
        )
        .get() as { seq: number };
      this.nextCursor = seq + 1;
      this.reservedTo = seq;
    }
    if (this.nextCursor + count - 1 <= this.reservedTo) return;
    const to = this.nextCursor + count - 1 + CURSOR_BLOCK;
    const { db } = this.options;
    try {
      this.options.batch.run(() => {
        const updated = db.query("UPDATE sqlite_sequence SET seq = :to WHERE name = 'runtime_events'").run({ to });
        if (updated.changes === 0)
          db.query("INSERT INTO sqlite_sequence (name, seq) VALUES ('runtime_events', :to)").run({ to });
      });
      this.options.batch.flush();
    } catch {
      // The store cannot write (a full disk): the events are dropped at their write too; counting goes on.
    }
    this.reservedTo = to;
  }

  /** Writes every event waiting now, in the store's current transaction; false when the store dropped them. */
  write(): boolean {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length === 0) return true;
    const waiting = this.waiting;
    this.waiting = [];
    try {
      this.insert(waiting);
      return true;
    } catch {
      for (const { rows } of waiting) this.dropped += rows.length;
      return false;
    }
  }

  private insert(waiting: { swarm: string; rows: readonly StoredRuntimeEvent[] }[]): void {
    this.options.batch.run(() => {
      const insert = this.options.db.query(
        "INSERT INTO runtime_events (cursor, swarm, agent, instance_key, type, turn_id, trace_id, event) VALUES (:cursor, :swarm, :agent, :key, :type, :turn, :trace, :event)",
      );
      for (const { swarm, rows } of waiting) {
        for (const { cursor, event } of rows) {
          insert.run({
            cursor,
            swarm,
            agent: event.agent,
            key: event.instanceKey,
            type: event.type,
            turn: event.turnId ?? null,
            trace: event.traceId === "" ? null : event.traceId,
            event: JSON.stringify(event),
          });
        }
        const counted = this.counts.get(swarm);
        if (counted !== undefined) this.counts.set(swarm, counted + rows.length);
      }
    });
  }

  /** Deletes a batch of the swarm's oldest events past `pruning` (runtime-event-rows.ts), in the current transaction. */
  prune(swarm: string, pruning: RuntimeEventPruning): number {
    this.write();
    let deleted = 0;
    this.options.batch.run(() => {
      deleted = deleteOldRuntimeEvents(this.options.db, swarm, {
        ...(pruning.before === undefined ? {} : { before: new Date(pruning.before).toISOString() }),
        ...(pruning.keepRows === undefined ? {} : { keepRows: pruning.keepRows }),
        limit: pruning.limit,
        count: () => this.count(swarm),
      });
    });
    const counted = this.counts.get(swarm);
    if (counted !== undefined) this.counts.set(swarm, counted - deleted);
    return deleted;
  }

  /** Forgets the counts (rows were deleted elsewhere: a deleted instance). */
  forgetCounts(): void {
    this.counts.clear();
  }

  private count(swarm: string): number {
    let counted = this.counts.get(swarm);
    if (counted === undefined) {
      counted = (
        this.options.db.query("SELECT COUNT(*) AS n FROM runtime_events WHERE swarm = :swarm").get({ swarm }) as {
          n: number;
        }
      ).n;
      this.counts.set(swarm, counted);
    }
    return counted;
  }
}
