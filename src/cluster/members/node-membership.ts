/**
 * The live nodes of a swarm's cluster: each node holds a lease on its own name in the nodes bucket, renewed
 * by a LeaseKeeper as its heartbeat, whose value carries its capacity (`maxProcesses`, the live count at the
 * last heartbeat) and the bundle hash it runs. A node that dies stops renewing and drops out after the TTL; a
 * node cut off from NATS is told (`onLost`) before the TTL ends. A name held by a node that keeps renewing is
 * taken (E_CLUSTER_NODE_NAME_TAKEN); a name left by a dead earlier run of the same node frees within one TTL,
 * so `join` waits for it. A node that refused the cluster's last reload (it runs another configuration) heartbeats
 * `draining` with the reason: placement and the orphan sweep pass it over until a later reload makes it agree.
 */
import type { Clock } from "../../shared/clock.ts";
import { UsageError } from "../../shared/errors.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import { clusterNames } from "../nats/names.ts";
import { LeaseKeeper, type LeaseLossReason } from "../lease/lease-keeper.ts";
import { DEFAULT_LEASE_TTL_MS, LeaseTable, type LeaseHolder } from "../lease/lease-table.ts";

export interface NodeInfo {
  node: string;
  maxProcesses: number;
  live: number;
  bundleHash: string;
  startedAt: string;
  /** Server time of the node's last heartbeat (epoch ms). */
  heartbeatAt: number;
  /** Set while the node takes no new instances and hands over the ones it runs. */
  draining?: Draining;
}

/** Why a node takes no new instances: it refused the cluster's reload `generation` (the error says why). */
export interface Draining {
  code: string;
  message: string;
  generation: number;
  /** ISO time the node started draining. */
  since: string;
}

export interface JoinClusterOptions {
  connection: ClusterConnection;
  swarm: string;
  node: string;
  maxProcesses: number;
  /** The node's live instance count, read at each heartbeat. */
  live: () => number;
  bundleHash: string;
  /** A node that stops heartbeating drops out after this long. Default 10000. */
  ttlMs?: number;
  /** The node lost its membership (cut off, or its name was taken over): it must stop everything it runs. */
  onLost: (reason: LeaseLossReason) => void;
  clock?: Clock;
  /** Poll for a name left by an earlier run this often while waiting for it to lapse. Default 250. */
  namePollMs?: number;
}

export class NodeMembership {
  private constructor(
    readonly table: LeaseTable,
    private readonly keeper: LeaseKeeper,
    readonly node: string,
    private readonly key: string,
    private readonly running: { bundleHash: string; draining?: Draining },
  ) {}

  static async join(options: JoinClusterOptions): Promise<NodeMembership> {
    const names = clusterNames(options.swarm);
    const table = await LeaseTable.open({
      connection: options.connection,
      bucket: names.nodesBucket,
      ttlMs: options.ttlMs ?? DEFAULT_LEASE_TTL_MS,
      description: "goondan live nodes",
    });
    const startedAt = new Date().toISOString();
    const running: { bundleHash: string; draining?: Draining } = { bundleHash: options.bundleHash };
    const keeper = new LeaseKeeper({
      table,
      owner: options.node,
      data: () => ({
        maxProcesses: options.maxProcesses,
        live: options.live(),
        bundleHash: running.bundleHash,
        startedAt,
        ...(running.draining ? { draining: { ...running.draining } } : {}),
      }),
      onLost: (_lease, reason) => options.onLost(reason),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    const key = names.nodeKey(options.node);
    const deadline = Date.now() + table.ttlMs + 1000;
    let seen: number | undefined;
    for (;;) {
      const outcome = await keeper.claim(key);
      if (outcome.status === "claimed") return new NodeMembership(table, keeper, options.node, key, running);
      // Renewed since we last looked, or still there past one TTL: a live node has this name.
      if ((seen !== undefined && outcome.holder.revision !== seen) || Date.now() > deadline) {
        keeper.stop();
        throw new UsageError(
          "E_CLUSTER_NODE_NAME_TAKEN",
          `node name ${options.node} is taken: a live node of swarm ${options.swarm} heartbeats under it (since ${String(outcome.holder.data.startedAt ?? "?")})`,
          {
            suggestion: "Give each node its own name with --node or GOONDAN_NODE.",
          },
        );
      }
      seen = outcome.holder.revision;
      await new Promise((resolve) => setTimeout(resolve, options.namePollMs ?? 250));
    }
  }

  /** The node now runs this bundle (after a reload): its next heartbeat says so. */
  runs(bundleHash: string): void {
    this.running.bundleHash = bundleHash;
  }

  /** The node drains (takes no new instances) for this reason, or takes them again (undefined); its next heartbeat says so. */
  drains(draining: Draining | undefined): void {
    if (draining === undefined) delete this.running.draining;
    else this.running.draining = draining;
  }

  /** Why this node drains now, if it does. */
  get draining(): Draining | undefined {
    return this.running.draining;
  }

  /** The live nodes, this one included (with its standing as it is now, not as its last heartbeat said). */
  async members(): Promise<NodeInfo[]> {
    return (await this.table.holders()).map((holder) => {
      const info = nodeInfo(holder);
      if (info.node !== this.node) return info;
      const { draining: _said, ...rest } = info;
      return {
        ...rest,
        bundleHash: this.running.bundleHash,
        ...(this.running.draining ? { draining: this.running.draining } : {}),
      };
    });
  }

  /** A member now (its heartbeat kept)? False after the heartbeat lapsed while NATS was out of reach. */
  get joined(): boolean {
    return this.keeper.holds(this.key);
  }

  /**
   * Take the node's name back after its heartbeat lapsed (NATS was out of reach). True when this node is a member
   * again; false while the name is still held (its own last heartbeat, lapsing within the TTL, or another node).
   */
  async rejoin(): Promise<boolean> {
    if (this.keeper.holds(this.key)) return true;
    return (await this.keeper.claim(this.key)).status === "claimed";
  }

  /** Leave the cluster now (a clean shutdown): the name frees at once. */
  async leave(): Promise<void> {
    await this.keeper.release(this.key);
    this.keeper.stop();
  }

  /** Stop heartbeating without leaving (the membership lapses after the TTL). */
  stop(): void {
    this.keeper.stop();
  }
}

/** A node's membership lease read as NodeInfo. */
export function nodeInfo(holder: LeaseHolder): NodeInfo {
  const data = holder.data;
  return {
    node: holder.owner,
    maxProcesses: typeof data.maxProcesses === "number" ? data.maxProcesses : 0,
    live: typeof data.live === "number" ? data.live : 0,
    bundleHash: typeof data.bundleHash === "string" ? data.bundleHash : "",
    startedAt: typeof data.startedAt === "string" ? data.startedAt : "",
    heartbeatAt: holder.writtenAt,
    ...(isDraining(data.draining) ? { draining: data.draining } : {}),
  };
}

function isDraining(value: unknown): value is Draining {
  const draining = value as Partial<Draining> | null | undefined;
  return (
    typeof draining === "object" &&
    draining !== null &&
    typeof draining.code === "string" &&
    typeof draining.message === "string" &&
    typeof draining.generation === "number" &&
    typeof draining.since === "string"
  );
}
