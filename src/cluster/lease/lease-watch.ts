/**
 * A live view of a lease bucket: who holds which key, and every change as an event — claimed, renewed,
 * released, expired. Claims, renewals and releases are writes the KV watch delivers. Expiry is not: a key
 * lapsing by TTL is removed by the server without a notice (NATS before 2.11 has no delete markers for it), so
 * the view calls a key expired when `ttl` has passed since the write it last saw, and a new claim by another
 * owner also ends the previous holder's lease. Placement counts each node's leases from this view.
 */
import { KvWatchInclude } from "@nats-io/kv";
import type { Clock, TimerHandle } from "../../shared/clock.ts";
import { systemClock } from "../../shared/clock.ts";
import { clusterUnavailable } from "../nats/errors.ts";
import { toHolder, type LeaseHolder, type LeaseTable } from "./lease-table.ts";

export type LeaseChangeType = "claimed" | "renewed" | "released" | "expired";

export interface LeaseChange {
  type: LeaseChangeType;
  key: string;
  owner: string;
  /** The revision of the write that changed it (for expired: the last revision seen). */
  revision: number;
  /** Local time the change was seen (epoch ms). */
  at: number;
}

export interface LeaseWatchOptions {
  table: Pick<LeaseTable, "kv" | "ttlMs" | "bucket">;
  onChange?: (change: LeaseChange) => void;
  clock?: Clock;
}

const LOAD_FALLBACK_MS = 3000;

interface Known {
  holder: LeaseHolder;
  timer: TimerHandle;
}

export class LeaseWatch {
  private readonly known = new Map<string, Known>();
  private readonly clock: Clock;
  private stopWatching: (() => void) | undefined;

  private constructor(private readonly options: LeaseWatchOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** Resolves once the current holders are loaded; changes flow to `onChange` from then on. */
  static async start(options: LeaseWatchOptions): Promise<LeaseWatch> {
    const watch = new LeaseWatch(options);
    await watch.follow();
    return watch;
  }

  /** The holders as this view knows them. */
  holders(): LeaseHolder[] {
    return [...this.known.values()].map((known) => known.holder);
  }

  holder(key: string): LeaseHolder | undefined {
    return this.known.get(key)?.holder;
  }

  /** How many leases each owner holds. */
  countsByOwner(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { holder } of this.known.values()) counts.set(holder.owner, (counts.get(holder.owner) ?? 0) + 1);
    return counts;
  }

  stop(): void {
    this.stopWatching?.();
    for (const known of this.known.values()) this.clock.clearTimeout(known.timer);
    this.known.clear();
  }

  private async follow(): Promise<void> {
    let iterator;
    try {
      iterator = await this.options.table.kv.watch({ include: KvWatchInclude.LastValue });
    } catch (error) {
      throw clusterUnavailable(`watching the leases of ${this.options.table.bucket}`, error);
    }
    this.stopWatching = () => iterator.stop();
    // The watch marks the last of the current values, and every later write, as an update: the view is
    // loaded at the first update, or at once when the bucket holds nothing.
    let loaded!: () => void;
    const initial = new Promise<void>((resolve) => (loaded = resolve));
    void (async () => {
      for await (const entry of iterator) {
        const holder = toHolder(entry);
        if (holder !== undefined) this.written(holder, entry.isUpdate);
        else this.removed(entry.key, entry.revision);
        if (entry.isUpdate) loaded();
      }
      loaded();
    })();
    const status = await this.options.table.kv.status().catch((error: unknown) => {
      iterator.stop();
      throw clusterUnavailable(`reading the leases of ${this.options.table.bucket}`, error);
    });
    if (status.values === 0) loaded();
    // Every current value lapsed between the watch's start and the count: nothing will mark the end.
    const fallback = setTimeout(loaded, LOAD_FALLBACK_MS);
    await initial;
    clearTimeout(fallback);
  }

  private written(holder: LeaseHolder, isUpdate: boolean): void {
    const now = this.clock.now();
    const previous = this.known.get(holder.key);
    if (previous !== undefined) {
      this.clock.clearTimeout(previous.timer);
      if (previous.holder.owner !== holder.owner) this.emit("expired", previous.holder, now);
    }
    // A write seen as it happens lapses ttl from now; one loaded from the bucket ttl from when it was written.
    const lapsesAt = isUpdate
      ? now + this.options.table.ttlMs
      : Math.min(now + this.options.table.ttlMs, Math.max(now, holder.writtenAt + this.options.table.ttlMs));
    const known: Known = { holder, timer: this.clock.setTimeout(() => this.lapse(holder), lapsesAt - now) };
    this.known.set(holder.key, known);
    const renewed = previous !== undefined && previous.holder.owner === holder.owner;
    this.emit(renewed ? "renewed" : "claimed", holder, now);
  }

  private removed(key: string, revision: number): void {
    const previous = this.known.get(key);
    if (previous === undefined) return;
    this.clock.clearTimeout(previous.timer);
    this.known.delete(key);
    this.emit("released", { ...previous.holder, revision }, this.clock.now());
  }

  private lapse(holder: LeaseHolder): void {
    if (this.known.get(holder.key)?.holder !== holder) return;
    this.known.delete(holder.key);
    this.emit("expired", holder, this.clock.now());
  }

  private emit(type: LeaseChangeType, holder: LeaseHolder, at: number): void {
    this.options.onChange?.({ type, key: holder.key, owner: holder.owner, revision: holder.revision, at });
  }
}
