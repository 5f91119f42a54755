/**
 * A node that refused the cluster's last reload (its bundle copy differs, or is invalid) runs a configuration the
 * cluster no longer runs: it drains. Its heartbeat says why (`draining`), so placement and the orphan sweep of every
 * node pass it over, it answers other nodes' `place` with no, and it hands each instance it owns over to a node that
 * agrees: the instance reads no more events, its running turn is answered (up to `turnGraceMs`, then stopped: its
 * event goes to the next owner), it stops here, its lease is released and the node placement picks is asked to claim
 * it (its waiting events follow it). An instance no agreeing node has room for stays here until one has: running it
 * on the old configuration beats not running it. A later reload this node takes ends the drain.
 */
import { describe } from "../../shared/errors.ts";
import type { RequestOutcome } from "../nats/messenger.ts";
import type { Logger } from "../../shared/logger.ts";
import type { Draining, NodeMembership } from "../members/node-membership.ts";
import type { OwnedInstances } from "../instances/owned-instances.ts";
import { chooseNode, placementCandidates } from "../members/placement.ts";

export interface NodeDrainOptions {
  node: string;
  membership: Pick<NodeMembership, "drains" | "draining" | "members">;
  owned: Pick<OwnedInstances, "list" | "handOver">;
  /** The instance leases each node holds now (the lease watch's counts). */
  leaseCounts: () => ReadonlyMap<string, number>;
  /** Asks a node to claim an instance (its `place` request). */
  messenger: {
    requestNode(
      node: string,
      kind: "place",
      request: { agent: string; instanceKey: string },
      options: { timeoutMs: number },
    ): Promise<RequestOutcome<{ owner: boolean }>>;
  };
  logger: Logger;
  /** How long a running turn may take to be answered before its instance is stopped anyway. Default 30000. */
  turnGraceMs?: number;
}

export class NodeDrain {
  private handing: Promise<number> | undefined;

  constructor(private readonly options: NodeDrainOptions) {}

  /** Why this node drains, if it does. */
  get draining(): Draining | undefined {
    return this.options.membership.draining;
  }

  /** The node refused a reload (`draining`: it drains and hands its instances over) or took a later one (undefined). */
  set(draining: Draining | undefined): void {
    const was = this.options.membership.draining;
    this.options.membership.drains(draining);
    if (draining === undefined) return;
    if (was === undefined)
      this.options.logger.warn(
        { draining },
        "this node runs another configuration than the cluster: it takes no new instances and hands its own over",
      );
    void this.handOver();
  }

  /**
   * While draining: hands every instance this node owns over to a node that agrees and has room; resolves with how
   * many went. One hand-over at a time (a call meanwhile gets the running one's count).
   */
  handOver(): Promise<number> {
    if (this.draining === undefined) return Promise.resolve(0);
    this.handing ??= this.handOverAll()
      .catch((error: unknown) => {
        this.options.logger.warn(
          { error: describe(error).message },
          "could not hand this node's instances over; next sweep",
        );
        return 0;
      })
      .finally(() => (this.handing = undefined));
    return this.handing;
  }

  private async handOverAll(): Promise<number> {
    const { owned, logger } = this.options;
    const instances = owned.list();
    if (instances.length === 0) return 0;
    const candidates = placementCandidates(await this.options.membership.members(), this.options.leaseCounts()).filter(
      (candidate) => candidate.node !== this.options.node,
    );
    const reason = `node drains: ${this.draining?.code ?? "reload refused"}`;
    const handed = await Promise.all(
      instances.map(async ({ agent, instanceKey, key }) => {
        const target = chooseNode({ instance: key, candidates });
        if (target === undefined) return false;
        const chosen = candidates.find((candidate) => candidate.node === target);
        if (chosen) chosen.live += 1; // the next pick sees it
        if (!(await owned.handOver(agent, instanceKey, reason, this.options.turnGraceMs ?? 30_000))) return false;
        const answer = await this.options.messenger
          .requestNode(target, "place", { agent, instanceKey }, { timeoutMs: 2000 })
          .catch(() => undefined);
        const placed = answer?.status === "ok" && answer.value.owner;
        logger.info(
          { agent, instanceKey, target, placed },
          placed
            ? "handed an instance over to a node that runs the cluster's bundle"
            : "released an instance; the node chosen did not claim it, the orphan sweep or its next event places it",
        );
        return true;
      }),
    );
    return handed.filter(Boolean).length;
  }
}
