/**
 * Leases in a JetStream KV bucket with a TTL: who holds each key (an agent instance, or a node's membership).
 * `claim` is an atomic create (only one claimer wins), `renew` an update at the revision the holder last wrote,
 * `release` a delete at that revision. The KV revision is the fencing token: once anyone else has written the
 * key, or the key expired, a stale holder's renew or release is refused (status "lost"), never applied. A key
 * nobody renews vanishes `ttlMs` after its last write, and anyone may claim it again.
 *
 * Failures that are not refusals (timeouts, a lost connection) throw E_CLUSTER_UNAVAILABLE; the lease keeper
 * decides what a holder does then.
 */
import type { KV, KvEntry } from "@nats-io/kv";
import type { JsonObject } from "../../shared/json.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import { clusterUnavailable, isWrongRevision } from "../nats/errors.ts";
import { openBucket } from "../nats/kv-bucket.ts";

/** A lease this process holds, as of its last successful write. */
export interface Lease {
  key: string;
  owner: string;
  /** The KV revision of our last write: the fencing token. */
  revision: number;
}

/** Whoever holds a key now, as the bucket says. */
export interface LeaseHolder {
  key: string;
  owner: string;
  revision: number;
  /** The server's time of the last write (epoch ms). */
  writtenAt: number;
  data: JsonObject;
}

export type ClaimOutcome = { status: "claimed"; lease: Lease } | { status: "held"; holder: LeaseHolder };
export type LostReason = "taken" | "expired";
export type RenewOutcome =
  | { status: "renewed"; lease: Lease }
  | { status: "lost"; reason: LostReason; holder?: LeaseHolder };
export type ReleaseOutcome = { status: "released" } | { status: "lost"; reason: LostReason; holder?: LeaseHolder };

interface LeaseValue {
  owner: string;
  data: JsonObject;
}

export interface OpenLeaseTableOptions {
  connection: ClusterConnection;
  bucket: string;
  /** A lease nobody renews lapses this long after its last write. Default 10000. */
  ttlMs?: number;
  /** Longest wait for one claim/renew/release. Default 2000. */
  requestTimeoutMs?: number;
  description?: string;
}

export const DEFAULT_LEASE_TTL_MS = 10_000;

export class LeaseTable {
  private constructor(
    readonly kv: KV,
    readonly bucket: string,
    readonly ttlMs: number,
    private readonly requestTimeoutMs: number,
  ) {}

  static async open(options: OpenLeaseTableOptions): Promise<LeaseTable> {
    const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    if (!Number.isInteger(ttlMs) || ttlMs < 1000)
      throw new RangeError(`LeaseTable: expected ttlMs to be an integer >= 1000, got ${ttlMs}`);
    const kv = await openBucket({
      connection: options.connection,
      bucket: options.bucket,
      ttlMs,
      description: options.description ?? "goondan leases",
    });
    return new LeaseTable(kv, options.bucket, ttlMs, options.requestTimeoutMs ?? 2000);
  }

  /** Take the key if nobody holds it; otherwise say who does. */
  async claim(key: string, owner: string, data: JsonObject = {}): Promise<ClaimOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        const revision = await this.kv.create(key, encode({ owner, data }));
        return { status: "claimed", lease: { key, owner, revision } };
      } catch (error) {
        if (!isWrongRevision(error)) throw clusterUnavailable(`claiming the lease ${key}`, error);
        const holder = await this.holder(key);
        if (holder !== undefined) return { status: "held", holder };
        // Held a moment ago and gone now (it lapsed in between): try once more.
        if (attempt === 2) throw clusterUnavailable(`claiming the lease ${key}`, error);
      }
    }
  }

  /** Write the lease again at the revision we hold, pushing its expiry back by the TTL. */
  async renew(lease: Lease, data: JsonObject = {}): Promise<RenewOutcome> {
    try {
      const revision = await this.kv.put(lease.key, encode({ owner: lease.owner, data }), {
        previousSeq: lease.revision,
        timeout: this.requestTimeoutMs,
      });
      return { status: "renewed", lease: { ...lease, revision } };
    } catch (error) {
      if (!isWrongRevision(error)) throw clusterUnavailable(`renewing the lease ${lease.key}`, error);
    }
    return this.lost(lease.key);
  }

  /** Give the key up, if it is still ours. */
  async release(lease: Lease): Promise<ReleaseOutcome> {
    try {
      await this.kv.delete(lease.key, { previousSeq: lease.revision });
      return { status: "released" };
    } catch (error) {
      if (!isWrongRevision(error)) throw clusterUnavailable(`releasing the lease ${lease.key}`, error);
    }
    return this.lost(lease.key);
  }

  async holder(key: string): Promise<LeaseHolder | undefined> {
    let entry: KvEntry | null;
    try {
      entry = await this.kv.get(key);
    } catch (error) {
      throw clusterUnavailable(`reading the lease ${key}`, error);
    }
    return entry === null ? undefined : toHolder(entry);
  }

  /** Every key held now. */
  async holders(): Promise<LeaseHolder[]> {
    const result: LeaseHolder[] = [];
    try {
      const keys: string[] = [];
      for await (const key of await this.kv.keys()) keys.push(key);
      for (const key of keys) {
        const holder = await this.holder(key);
        if (holder !== undefined) result.push(holder);
      }
    } catch (error) {
      throw clusterUnavailable(`listing the leases of ${this.bucket}`, error);
    }
    return result;
  }

  private async lost(key: string): Promise<{ status: "lost"; reason: LostReason; holder?: LeaseHolder }> {
    const holder = await this.holder(key);
    return holder === undefined ? { status: "lost", reason: "expired" } : { status: "lost", reason: "taken", holder };
  }
}

const encode = (value: LeaseValue): string => JSON.stringify(value);

/** The holder an entry names; undefined for a delete marker or a value that is not a lease. */
export function toHolder(entry: KvEntry): LeaseHolder | undefined {
  if (entry.operation !== "PUT") return undefined;
  let value: Partial<LeaseValue>;
  try {
    value = entry.json<Partial<LeaseValue>>();
  } catch {
    return undefined;
  }
  if (typeof value?.owner !== "string") return undefined;
  return {
    key: entry.key,
    owner: value.owner,
    revision: entry.revision,
    writtenAt: entry.created.getTime(),
    data: value.data ?? {},
  };
}
