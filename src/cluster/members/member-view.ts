/**
 * A live list of the cluster's members, for the cluster-wide reads: a LeaseWatch on the nodes bucket, so a read asks
 * the nodes at once instead of first listing the bucket (a key listing and one get per node: 4.5 ms p50 on the local
 * NATS, against 0.3 ms for the request/reply that follows). A member is live in this view exactly as in the bucket:
 * from its heartbeat until it leaves, or until the TTL after its last heartbeat.
 */
import type { ClusterConnection } from "../nats/connection.ts";
import type { ClusterNames } from "../nats/names.ts";
import { LeaseTable } from "../lease/lease-table.ts";
import { LeaseWatch } from "../lease/lease-watch.ts";

export interface MemberView {
  /** The live members' names, this node's included once it heartbeats. */
  nodes(): string[];
  stop(): void;
}

export async function watchMembers(options: {
  connection: ClusterConnection;
  names: ClusterNames;
  ttlMs: number;
}): Promise<MemberView> {
  const table = await LeaseTable.open({
    connection: options.connection,
    bucket: options.names.nodesBucket,
    ttlMs: options.ttlMs,
    description: "goondan live nodes",
  });
  const watch = await LeaseWatch.start({ table });
  return { nodes: () => watch.holders().map((holder) => holder.owner), stop: () => watch.stop() };
}
