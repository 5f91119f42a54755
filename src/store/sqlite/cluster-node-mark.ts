/**
 * Whether a state root's database is a cluster node's local copy: the `cluster_node` row of its `meta` table, set by
 * a `goondan run --cluster` as it opens its state root and cleared by a run without `--cluster`. A node's instances
 * live in the cluster's JetStream state log and are replayed from there by whichever node takes one over, so a
 * change made to the local copy alone (`goondan instance delete|archive`) would not last: the operator commands read
 * this mark and refuse. Read and written through the store's own connection (SqliteStore.markClusterNode).
 */
import type { Database } from "bun:sqlite";

const KEY = "cluster_node";

export interface ClusterNodeMark {
  node: string;
  /** The swarm's instanceKey (names its NATS streams and buckets). */
  swarm: string;
  /** When the node last opened this state root (ISO 8601). */
  since: string;
}

/** Marks the database as node `mark.node`'s local copy, or (undefined) as a single host's. */
export function writeClusterNodeMark(db: Database, mark: ClusterNodeMark | undefined): void {
  if (mark === undefined) db.query("DELETE FROM meta WHERE key = :key").run({ key: KEY });
  else
    db.query(
      "INSERT INTO meta (key, value) VALUES (:key, :value) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run({ key: KEY, value: JSON.stringify(mark) });
}

/** The mark, when a cluster node last ran on this database; undefined for a single host's (or an unreadable mark). */
export function readClusterNodeMark(db: Database): ClusterNodeMark | undefined {
  try {
    const row = db.query("SELECT value FROM meta WHERE key = :key").get({ key: KEY }) as { value: string } | null;
    if (row === null) return undefined;
    const mark = JSON.parse(row.value) as Partial<ClusterNodeMark>;
    return typeof mark.node === "string" && typeof mark.swarm === "string" ? (mark as ClusterNodeMark) : undefined;
  } catch {
    return undefined;
  }
}
