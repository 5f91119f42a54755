/**
 * Keeps the leases one holder (a node) claimed: renews each on a timer, and tells the holder to stop what a
 * lease covers (`onLost`) as soon as it may no longer be the only one running it:
 *   - "taken" / "expired": a renew was refused, because someone else wrote the key or it lapsed;
 *   - "unrenewed": no renew succeeded in time. A lease written by a request sent at time T lapses on the
 *     server no earlier than T + ttl, so the holder is told at T + ttl - margin, whatever its connection is
 *     doing, and has `margin` to stop before anyone else can claim the key.
 * Only the local clock's rate matters (no clock agreement between hosts): deadlines count from when this node
 * sent its own request. A renew that lands after its holder was told to stop is released at once, so the key
 * frees up early instead of lapsing; one that timed out here but landed later (a short NATS outage) is adopted: the
 * next renew is refused at the old revision, names this owner as the holder, and the keeper carries on from there.
 */
import type { Clock, TimerHandle } from "../../shared/clock.ts";
import { systemClock } from "../../shared/clock.ts";
import type { JsonObject } from "../../shared/json.ts";
import type { ClaimOutcome, Lease, LeaseTable } from "./lease-table.ts";

export type LeaseLossReason = "taken" | "expired" | "unrenewed";

export interface LeaseKeeperOptions {
  table: Pick<LeaseTable, "ttlMs" | "claim" | "renew" | "release">;
  /** Who holds the leases this keeper claims (the node name). */
  owner: string;
  /** Called once per lost lease, at once: stop everything the lease covers. */
  onLost: (lease: Lease, reason: LeaseLossReason) => void;
  /** Renew every lease this often. Default: a quarter of the TTL. */
  renewEveryMs?: number;
  /** Tell a holder to stop this long before its lease can lapse. Default: a fifth of the TTL. */
  marginMs?: number;
  /** The value written with each claim and renew (a node's capacity, …). Default: `{}`. */
  data?: (key: string) => JsonObject;
  clock?: Clock;
}

interface Held {
  lease: Lease;
  renewTimer?: TimerHandle;
  deadlineTimer?: TimerHandle;
  renewing?: Promise<void>;
}

export class LeaseKeeper {
  private readonly held = new Map<string, Held>();
  private readonly clock: Clock;
  private readonly renewEveryMs: number;
  private readonly marginMs: number;
  private stopped = false;

  constructor(private readonly options: LeaseKeeperOptions) {
    const ttl = options.table.ttlMs;
    this.clock = options.clock ?? systemClock;
    this.marginMs = options.marginMs ?? Math.floor(ttl / 5);
    this.renewEveryMs = options.renewEveryMs ?? Math.floor(ttl / 4);
    if (!(this.marginMs > 0 && this.marginMs < ttl))
      throw new RangeError(`LeaseKeeper: expected 0 < marginMs < ttl (${ttl}), got ${this.marginMs}`);
    if (!(this.renewEveryMs > 0 && this.renewEveryMs < ttl - this.marginMs)) {
      throw new RangeError(
        `LeaseKeeper: expected 0 < renewEveryMs < ttl - marginMs (${ttl - this.marginMs}), got ${this.renewEveryMs}`,
      );
    }
  }

  /** Claim a key for this keeper's owner and keep it renewed while it is held. */
  async claim(key: string): Promise<ClaimOutcome> {
    if (this.stopped) throw new Error("LeaseKeeper: claim after stop");
    const sentAt = this.clock.now();
    const outcome = await this.options.table.claim(key, this.options.owner, this.data(key));
    if (outcome.status === "claimed") this.keep(outcome.lease, sentAt);
    return outcome;
  }

  /** The leases held now. */
  leases(): Lease[] {
    return [...this.held.values()].map((held) => held.lease);
  }

  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** Stop keeping a lease and delete it (at its revision), so another node may claim it at once. */
  async release(key: string): Promise<void> {
    const held = this.held.get(key);
    if (held === undefined) return;
    this.forget(key);
    await held.renewing;
    await this.options.table.release(held.lease).catch(() => undefined);
  }

  /** Release every lease (a clean shutdown). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held.keys()].map((key) => this.release(key)));
  }

  /** Stop every timer without releasing anything (the leases lapse by themselves). */
  stop(): void {
    this.stopped = true;
    for (const key of [...this.held.keys()]) this.forget(key);
  }

  private keep(lease: Lease, sentAt: number): void {
    const held: Held = { lease };
    this.held.set(lease.key, held);
    this.armDeadline(held, sentAt);
    this.scheduleRenew(held, sentAt + this.renewEveryMs - this.clock.now());
  }

  private armDeadline(held: Held, sentAt: number): void {
    if (held.deadlineTimer !== undefined) this.clock.clearTimeout(held.deadlineTimer);
    const delay = Math.max(0, sentAt + this.options.table.ttlMs - this.marginMs - this.clock.now());
    held.deadlineTimer = this.clock.setTimeout(() => this.lose(held, "unrenewed"), delay);
  }

  private scheduleRenew(held: Held, delay: number): void {
    held.renewTimer = this.clock.setTimeout(
      () => {
        held.renewing = this.renew(held);
      },
      Math.max(0, delay),
    );
  }

  private async renew(held: Held): Promise<void> {
    const sentAt = this.clock.now();
    let outcome: Awaited<ReturnType<LeaseKeeperOptions["table"]["renew"]>>;
    try {
      outcome = await this.options.table.renew(held.lease, this.data(held.lease.key));
    } catch {
      // No answer: try again soon; the deadline stands.
      if (this.current(held)) this.scheduleRenew(held, Math.max(1, Math.floor(this.renewEveryMs / 4)));
      return;
    }
    if (outcome.status === "lost") {
      if (!this.current(held)) return;
      // A renew of ours that timed out here but reached the server later (sent while NATS was away) wrote the key:
      // it is still ours, at that revision. Nobody else writes our name on a key we claimed. The deadline stands.
      if (outcome.holder !== undefined && outcome.holder.owner === this.options.owner) {
        held.lease = { ...held.lease, revision: outcome.holder.revision };
        this.scheduleRenew(held, 0);
        return;
      }
      this.lose(held, outcome.reason);
      return;
    }
    if (!this.current(held)) {
      // Renewed after the holder was told to stop (or released): free the key now.
      await this.options.table.release(outcome.lease).catch(() => undefined);
      return;
    }
    held.lease = outcome.lease;
    this.armDeadline(held, sentAt);
    this.scheduleRenew(held, sentAt + this.renewEveryMs - this.clock.now());
  }

  private current(held: Held): boolean {
    return this.held.get(held.lease.key) === held;
  }

  private lose(held: Held, reason: LeaseLossReason): void {
    if (!this.current(held)) return;
    this.forget(held.lease.key);
    this.options.onLost(held.lease, reason);
  }

  private forget(key: string): void {
    const held = this.held.get(key);
    if (held === undefined) return;
    if (held.renewTimer !== undefined) this.clock.clearTimeout(held.renewTimer);
    if (held.deadlineTimer !== undefined) this.clock.clearTimeout(held.deadlineTimer);
    this.held.delete(key);
  }

  private data(key: string): JsonObject {
    return this.options.data?.(key) ?? {};
  }
}
