/**
 * The live nodes of a swarm's cluster: each node holds a lease on its own name in the nodes bucket, renewed
 * by a LeaseKeeper as its heartbeat, whose value carries its capacity (`maxProcesses`, the live count at the
 * last heartbeat) and the bundle hash it runs. A node that dies stops renewing and drops out after the TTL; a
 * node cut off from NATS is told (`onLost`) before the TTL ends. A name held by a node that keeps renewing is
 * taken (E_CLUSTER_NODE_NAME_TAKEN); a name left by a dead earlier run of the same node frees within one TTL,
 * so `join` waits for it.
 */
import type { Clock } from "../shared/clock.ts";
import { UsageError } from "../shared/errors.ts";
import type { ClusterConnection } from "./cluster-connection.ts";
import { clusterNames } from "./cluster-names.ts";
import { LeaseKeeper, type LeaseLossReason } from "./lease-keeper.ts";
import { DEFAULT_LEASE_TTL_MS, LeaseTable, type LeaseHolder } from "./lease-table.ts";

export interface NodeInfo {
  node: string;
  maxProcesses: number;
  live: number;
  bundleHash: string;
  startedAt: string;
  /** Server time of the node's last heartbeat (epoch ms). */
  heartbeatAt: number;
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
  ) {}

  static async join(options: JoinClusterOptions): Promise<NodeMembership> {
    const names = clusterNames(options.swarm);
    const table = await LeaseTable.open({ connection: options.connection, bucket: names.nodesBucket, ttlMs: options.ttlMs ?? DEFAULT_LEASE_TTL_MS, description: "goondan live nodes" });
    const startedAt = new Date().toISOString();
    const keeper = new LeaseKeeper({
      table,
      owner: options.node,
      data: () => ({ maxProcesses: options.maxProcesses, live: options.live(), bundleHash: options.bundleHash, startedAt }),
      onLost: (_lease, reason) => options.onLost(reason),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    const key = names.nodeKey(options.node);
    const deadline = Date.now() + table.ttlMs + 1000;
    let seen: number | undefined;
    for (;;) {
      const outcome = await keeper.claim(key);
      if (outcome.status === "claimed") return new NodeMembership(table, keeper, options.node, key);
      // Renewed since we last looked, or still there past one TTL: a live node has this name.
      if ((seen !== undefined && outcome.holder.revision !== seen) || Date.now() > deadline) {
        keeper.stop();
        throw new UsageError("E_CLUSTER_NODE_NAME_TAKEN", `node name ${options.node} is taken: a live node of swarm ${options.swarm} heartbeats under it (since ${String(outcome.holder.data.startedAt ?? "?")})`, {
          suggestion: "Give each node its own name with --node or GOONDAN_NODE.",
        });
      }
      seen = outcome.holder.revision;
      await new Promise((resolve) => setTimeout(resolve, options.namePollMs ?? 250));
    }
  }

  /** The live nodes, this one included. */
  async members(): Promise<NodeInfo[]> {
    return (await this.table.holders()).map(nodeInfo);
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
  };
}
