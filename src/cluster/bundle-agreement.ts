/**
 * One bundle per cluster: the hash of the bundle the cluster runs, kept under `bundle` in the swarm's config
 * bucket (no TTL), and the announcement of a cluster-wide reload. A joining node whose bundle hash differs from
 * the cluster's is refused with E_CLUSTER_BUNDLE_MISMATCH while any other live node runs another bundle; when no
 * live node disagrees (the first node, or every node restarted with the new bundle) the node's hash becomes the
 * cluster's. A reload is announced by writing the new hash; every node's watch sees it and reloads.
 */
import { KvWatchInclude, type KV, type KvEntry } from "@nats-io/kv";
import { ConfigError } from "../shared/errors.ts";
import type { ClusterConnection } from "./cluster-connection.ts";
import { clusterUnavailable, isWrongRevision } from "./cluster-errors.ts";
import { BUNDLE_CONFIG_KEY, clusterNames } from "./cluster-names.ts";
import { openBucket } from "./kv-bucket.ts";
import type { NodeInfo } from "./node-membership.ts";

export interface BundleRecord {
  hash: string;
  /** The node that wrote it. */
  node: string;
  /** Its KV revision. */
  revision: number;
}

export interface JoinBundleOptions {
  node: string;
  hash: string;
  /** The cluster's live nodes (this one may be among them). */
  members: readonly NodeInfo[];
}

const MAX_JOIN_ATTEMPTS = 5;

export class BundleAgreement {
  private constructor(
    private readonly kv: KV,
    private readonly swarm: string,
  ) {}

  static async open(options: { connection: ClusterConnection; swarm: string }): Promise<BundleAgreement> {
    const kv = await openBucket({ connection: options.connection, bucket: clusterNames(options.swarm).configBucket, ttlMs: 0, history: 10, description: "goondan cluster config" });
    return new BundleAgreement(kv, options.swarm);
  }

  /** The cluster's bundle, if any node set one. */
  async current(): Promise<BundleRecord | undefined> {
    let entry: KvEntry | null;
    try {
      entry = await this.kv.get(BUNDLE_CONFIG_KEY);
    } catch (error) {
      throw clusterUnavailable(`reading the cluster's bundle hash of ${this.swarm}`, error);
    }
    return entry === null ? undefined : toRecord(entry);
  }

  /** Check this node's bundle against the cluster's; refuse, or agree (making it the cluster's if needed). */
  async join(options: JoinBundleOptions): Promise<BundleRecord> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.current();
      if (current?.hash === options.hash) return current;
      const others = options.members.filter((member) => member.node !== options.node && member.bundleHash !== options.hash);
      if (others.length > 0) {
        const list = others.map((member) => `${member.node} (${member.bundleHash || "no hash"})`).join(", ");
        throw new ConfigError("E_CLUSTER_BUNDLE_MISMATCH", `this node's bundle (${options.hash}) differs from the one the cluster of swarm ${this.swarm} runs (${current?.hash ?? "?"}, set by ${current?.node ?? "?"}); live nodes running another bundle: ${list}`, {
          suggestion: "Deploy the same bundle on every node; to change it, put the new bundle on every node and run `goondan restart` on one of them.",
        });
      }
      try {
        return await this.write(options.node, options.hash, current?.revision ?? 0);
      } catch (error) {
        if (!isWrongRevision(error) || attempt === MAX_JOIN_ATTEMPTS) throw clusterUnavailable(`setting the cluster's bundle hash of ${this.swarm}`, error);
      }
    }
  }

  /** Announce a reload: the new bundle hash becomes the cluster's and every watching node sees it. */
  async announce(options: { node: string; hash: string }): Promise<BundleRecord> {
    try {
      const revision = await this.kv.put(BUNDLE_CONFIG_KEY, JSON.stringify({ hash: options.hash, node: options.node }));
      return { hash: options.hash, node: options.node, revision };
    } catch (error) {
      throw clusterUnavailable(`announcing bundle ${options.hash} to swarm ${this.swarm}`, error);
    }
  }

  /** Calls `listener` for every bundle announced from now on. */
  async watch(listener: (record: BundleRecord) => void): Promise<{ stop(): void }> {
    let iterator;
    try {
      iterator = await this.kv.watch({ key: BUNDLE_CONFIG_KEY, include: KvWatchInclude.UpdatesOnly });
    } catch (error) {
      throw clusterUnavailable(`watching the cluster's bundle of ${this.swarm}`, error);
    }
    void (async () => {
      for await (const entry of iterator) {
        const record = toRecord(entry);
        if (record !== undefined) listener(record);
      }
    })();
    return { stop: () => iterator.stop() };
  }

  private async write(node: string, hash: string, revision: number): Promise<BundleRecord> {
    const value = JSON.stringify({ hash, node });
    const written = revision === 0 ? await this.kv.create(BUNDLE_CONFIG_KEY, value) : await this.kv.update(BUNDLE_CONFIG_KEY, value, revision);
    return { hash, node, revision: written };
  }
}

function toRecord(entry: KvEntry): BundleRecord | undefined {
  if (entry.operation !== "PUT") return undefined;
  try {
    const value = entry.json<{ hash?: unknown; node?: unknown }>();
    if (typeof value.hash !== "string") return undefined;
    return { hash: value.hash, node: typeof value.node === "string" ? value.node : "", revision: entry.revision };
  } catch {
    return undefined;
  }
}
