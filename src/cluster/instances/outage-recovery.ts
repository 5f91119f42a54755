/**
 * What a node does when its NATS connection goes and comes back. While it is away the node refuses new events
 * (ClusterNode.accept) and its lease keeper stops its instances before their leases can lapse; OwnedInstances
 * remembers them. When the connection returns, `recover` claims them back at once (before this node's own orphan
 * sweep, and before other nodes leave their grace), then takes the node's name back in the membership. After its
 * own reconnection a node leaves orphans it did not hold alone (`deferring`) for one grace period (a lease TTL), and
 * beyond it, up to three, while a node that was a member when NATS went has not rejoined yet: when NATS was down for
 * every node, every node is reconnecting then, and each takes back its own instances (a node claims back before it
 * rejoins) instead of the first one back scattering them. A node that never lost NATS does not defer, so a node that
 * died or was cut off alone still has its instances taken over after the TTL.
 */
import type { Clock } from "../../shared/clock.ts";
import { systemClock } from "../../shared/clock.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ClusterConnection, ClusterConnectionState } from "../nats/connection.ts";
import type { Draining, NodeMembership } from "../members/node-membership.ts";
import type { OwnedInstances } from "./owned-instances.ts";

export interface OutageRecoveryOptions {
  connection: Pick<ClusterConnection, "state" | "onState">;
  owned: Pick<OwnedInstances, "reclaim" | "awaiting">;
  membership: Pick<NodeMembership, "rejoin" | "joined">;
  /** After its own reconnection, leave other nodes' orphans alone this long (the lease TTL); up to 3x as long while a node that was a member before has not rejoined. */
  graceMs: number;
  logger: Logger;
  clock?: Clock;
}

/** A node's standing in its cluster, as `GET /v1/processes` and `GET /healthz` show it. */
export interface ClusterStatus {
  node: string;
  connection: ClusterConnectionState;
  /** Since when (ISO time) the connection is down; absent while connected. */
  disconnectedSince?: string;
  /** Whether the node's heartbeat is in the membership (false from a lapse until it rejoins). */
  member: boolean;
  /** Instances this node owns now. */
  instances: number;
  /** Instances it stopped for want of NATS and claims back when NATS returns. */
  awaitingReclaim: number;
  /** Set while it takes no new instances (it refused the cluster's last reload: node-drain.ts). */
  draining?: Draining;
}

export class OutageRecovery {
  private readonly clock: Clock;
  private reconnectedAt = Number.NEGATIVE_INFINITY;
  /** The other members seen last while connected; at a disconnection, the ones expected back. */
  private lastMembers: string[] = [];
  private expected: string[] = [];
  private disconnectedAt: number | undefined;
  private running: Promise<void> | undefined;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: OutageRecoveryOptions) {
    this.clock = options.clock ?? systemClock;
    this.unsubscribe = options.connection.onState((state) => this.changed(state));
  }

  /**
   * True while this node's own reconnection is recent: it claims back its own instances, not others'. `members`:
   * the live members now (this node's own name is ignored); they are also noted as the ones to expect back after
   * the next disconnection.
   */
  deferring(members: readonly string[], self: string): boolean {
    const others = members.filter((member) => member !== self);
    const since = this.clock.now() - this.reconnectedAt;
    if (since >= 3 * this.options.graceMs) {
      this.lastMembers = others;
      return false;
    }
    if (since < this.options.graceMs) return true;
    return this.expected.some((member) => !others.includes(member));
  }

  /** Claims back the remembered instances, then the node's name; one run at a time. Never throws. */
  recover(): Promise<void> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  status(node: string, instances: number): ClusterStatus {
    const { connection, owned, membership } = this.options;
    return {
      node,
      connection: connection.state,
      ...(this.disconnectedAt === undefined ? {} : { disconnectedSince: new Date(this.disconnectedAt).toISOString() }),
      member: membership.joined,
      instances,
      awaitingReclaim: owned.awaiting,
    };
  }

  stop(): void {
    this.unsubscribe();
  }

  private changed(state: ClusterConnectionState): void {
    const { logger } = this.options;
    if (state === "connected") {
      const awayMs = this.disconnectedAt === undefined ? 0 : this.clock.now() - this.disconnectedAt;
      this.disconnectedAt = undefined;
      this.reconnectedAt = this.clock.now();
      logger.info(
        { awayMs, awaitingReclaim: this.options.owned.awaiting },
        "reconnected to the cluster's NATS; claiming back this node's instances",
      );
      void this.recover();
    } else if (this.disconnectedAt === undefined) {
      this.disconnectedAt = this.clock.now();
      // Expect back the members seen before this outage (not the ones left from an earlier one still being waited on).
      if (this.clock.now() - this.reconnectedAt >= 3 * this.options.graceMs) this.expected = this.lastMembers;
      logger.warn(
        { state },
        "lost the cluster's NATS: refusing new events; instances stop before their leases can lapse and are claimed back on return",
      );
    }
  }

  private async run(): Promise<void> {
    const { owned, membership, logger, connection } = this.options;
    if (connection.state !== "connected") return;
    try {
      if (owned.awaiting > 0) {
        const waiting = owned.awaiting;
        const reclaimed = await owned.reclaim();
        if (reclaimed > 0 || owned.awaiting < waiting)
          logger.info(
            { reclaimed, of: waiting, left: owned.awaiting },
            "claimed back instances held before NATS was lost",
          );
      }
      if (!membership.joined && (await membership.rejoin())) logger.info("rejoined the cluster's membership");
    } catch (error) {
      logger.debug({ error: describe(error).message }, "recovery after NATS returned failed; next sweep");
    }
  }
}
