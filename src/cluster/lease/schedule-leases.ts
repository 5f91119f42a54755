/**
 * Which node of a cluster fires each schedule's ticks: one lease per schedule (its Connection), in a bucket of its
 * own, claimed and kept exactly as an instance's lease is (LeaseTable + LeaseKeeper: an atomic create, renewed
 * with the revision as fencing token, told to stop `margin` before it can lapse). Every node tries, every quarter
 * of the TTL, to claim the schedules nobody holds; the one that wins fires their ticks until it loses the lease
 * (it died, or was cut off from NATS), and then another node claims it within about a TTL.
 *
 * The newest tick each schedule accepted is kept beside the leases, in a bucket without TTL (`ticks`), so the node
 * that takes a schedule over carries on after it: the ticks that came due in between follow the Connection's
 * `catchUp`. The cursor is written after the tick's event is accepted, so the only tick a new holder may fire again
 * is one the old holder accepted but had not recorded yet; it has the same stable event id, and the store of the
 * instance's owner, which holds every event id it accepted, takes it once.
 */
import type { KV } from "@nats-io/kv";
import type { Logger } from "../../shared/logger.ts";
import { describe } from "../../shared/errors.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import { openBucket } from "../nats/kv-bucket.ts";
import type { ClusterNames } from "../nats/names.ts";
import { subjectToken } from "../nats/subject-token.ts";
import { LeaseKeeper, type LeaseLossReason } from "./lease-keeper.ts";
import { LeaseTable } from "./lease-table.ts";

export interface ScheduleLeaseHandlers {
  /** This node now fires `connection`'s ticks. */
  held(connection: string): void;
  /** This node must stop firing `connection`'s ticks at once (another node may claim it after the margin). */
  lost(connection: string, reason: LeaseLossReason): void;
}

export interface OpenScheduleLeasesOptions {
  connection: ClusterConnection;
  names: ClusterNames;
  node: string;
  ttlMs: number;
  logger: Logger;
}

export class ScheduleLeases {
  private connections: string[] = [];
  private handlers: ScheduleLeaseHandlers | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private claiming = false;
  private stopped = false;
  private readonly keeper: LeaseKeeper;

  private constructor(
    private readonly table: LeaseTable,
    private readonly cursors: KV,
    private readonly options: OpenScheduleLeasesOptions,
  ) {
    this.keeper = new LeaseKeeper({
      table,
      owner: options.node,
      onLost: (lease, reason) => {
        const connection = this.connectionOf(lease.key);
        if (connection === undefined) return;
        options.logger.warn({ connection, reason }, "lost the lease of a schedule; this node stops firing it");
        this.handlers?.lost(connection, reason);
      },
    });
  }

  static async open(options: OpenScheduleLeasesOptions): Promise<ScheduleLeases> {
    const table = await LeaseTable.open({
      connection: options.connection,
      bucket: options.names.scheduleLeaseBucket,
      ttlMs: options.ttlMs,
      description: "goondan schedule leases",
    });
    const cursors = await openBucket({
      connection: options.connection,
      bucket: options.names.tickCursorBucket,
      ttlMs: 0,
      description: "goondan schedules' newest accepted ticks",
    });
    return new ScheduleLeases(table, cursors, options);
  }

  /** Claims (now and every quarter TTL) those of `connections` nobody holds; releases held ones no longer listed. */
  follow(connections: readonly string[], handlers: ScheduleLeaseHandlers): void {
    this.handlers = handlers;
    const dropped = this.connections.filter((connection) => !connections.includes(connection));
    this.connections = [...connections];
    for (const connection of dropped) void this.keeper.release(subjectToken(connection));
    if (this.timer === undefined && !this.stopped) {
      this.timer = setInterval(() => void this.claimFree(), Math.max(250, Math.floor(this.table.ttlMs / 4)));
    }
    void this.claimFree();
  }

  holds(connection: string): boolean {
    return this.keeper.holds(subjectToken(connection));
  }

  /** Gives `connection`'s lease up (its runner could not start): this node or another claims it again. */
  async release(connection: string): Promise<void> {
    await this.keeper.release(subjectToken(connection));
  }

  /** The node firing `connection`'s ticks, as the bucket says now. */
  async holder(connection: string): Promise<string | undefined> {
    return (await this.table.holder(subjectToken(connection)).catch(() => undefined))?.owner;
  }

  /** The due time of the newest tick of `connection` any node recorded. */
  async cursor(connection: string): Promise<number | undefined> {
    const entry = await this.cursors.get(subjectToken(connection));
    if (entry === null || entry.operation !== "PUT") return undefined;
    const at = Number(entry.string());
    return Number.isSafeInteger(at) ? at : undefined;
  }

  /** Records that `connection`'s tick due at `at` was accepted (the cursor only moves forward). */
  async record(connection: string, at: number): Promise<void> {
    try {
      const known = await this.cursor(connection);
      if (known !== undefined && known >= at) return;
      await this.cursors.put(subjectToken(connection), String(at));
    } catch (error) {
      // The tick is accepted; a cursor left behind only makes a new holder offer it again, which is taken once.
      this.options.logger.warn({ connection, error: describe(error).message }, "could not record a schedule's tick");
    }
  }

  /** Releases every schedule this node fires (a clean stop), so another node takes them at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.keeper.releaseAll();
    this.keeper.stop();
  }

  private async claimFree(): Promise<void> {
    if (this.stopped || this.claiming || this.options.connection.state !== "connected") return;
    this.claiming = true;
    try {
      for (const connection of this.connections) {
        const key = subjectToken(connection);
        if (this.stopped || this.keeper.holds(key)) continue;
        const outcome = await this.keeper.claim(key);
        if (outcome.status !== "claimed") continue;
        this.options.logger.info({ connection, node: this.options.node }, "this node fires the schedule's ticks");
        this.handlers?.held(connection);
      }
    } catch (error) {
      this.options.logger.debug({ error: describe(error).message }, "claiming schedules failed; next time");
    } finally {
      this.claiming = false;
    }
  }

  private connectionOf(key: string): string | undefined {
    return this.connections.find((connection) => subjectToken(connection) === key);
  }
}
