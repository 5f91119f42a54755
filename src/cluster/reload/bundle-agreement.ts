/**
 * One bundle per cluster: the hash of the bundle the cluster runs, kept under `bundle` in the swarm's config
 * bucket (no TTL), and the announcement of a cluster-wide reload. A joining node whose bundle hash differs from
 * the cluster's is refused with E_CLUSTER_BUNDLE_MISMATCH while any other live node runs another bundle; when no
 * live node disagrees (the first node, or every node restarted with the new bundle) the node's hash becomes the
 * cluster's. A reload is announced by writing the new hash with the next reload generation, the node that asked,
 * its reasons and scope (`announce`, a conditional write, so two announcements never share a generation); every
 * node's watch sees it (reload/reload.ts applies it). Each node reports how it took the last announcement under
 * `reload.<node>` (`report`, `reports`).
 */
import { KvWatchInclude, type KV, type KvEntry } from "@nats-io/kv";
import type { ReloadScope } from "../../orchestrator/reload/reload-plan.ts";
import type { ErrorInfo } from "../../protocol/error-info.ts";
import { ConfigError } from "../../shared/errors.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import { clusterUnavailable, isWrongRevision } from "../nats/errors.ts";
import { BUNDLE_CONFIG_KEY, clusterNames, type ClusterNames } from "../nats/names.ts";
import { openBucket } from "../nats/kv-bucket.ts";
import type { NodeInfo } from "../members/node-membership.ts";

export interface BundleRecord {
  hash: string;
  /** The node that wrote it. */
  node: string;
  /** Its KV revision. */
  revision: number;
  /** The reload generation: 0 until the first reload is announced, then one more per announcement. */
  generation: number;
  /** Set when this record announces a reload (not when a node joining set the cluster's hash). */
  reload?: ReloadAnnouncement;
}

export interface ReloadAnnouncement {
  /** The node the restart was asked of. */
  by: string;
  /** The reasons of the restart requests it applied (`POST /v1/restart`, `self-restart`, ...). */
  reasons: string[];
  /** What restarts and what is cleared, on every node. */
  scope: ReloadScope;
}

/** How one node took a reload announcement. */
export interface ReloadReport {
  node: string;
  generation: number;
  /** `reloaded`: applied; `refused`: the node keeps running its configuration (see `error`). */
  status: "reloaded" | "refused";
  /** The bundle hash the node runs after taking the announcement. */
  hash: string;
  /** The hash that was announced. */
  announcedHash: string;
  error?: ErrorInfo;
  /** ISO time. */
  at: string;
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
    private readonly names: ClusterNames,
  ) {}

  static async open(options: { connection: ClusterConnection; swarm: string }): Promise<BundleAgreement> {
    const names = clusterNames(options.swarm);
    const kv = await openBucket({
      connection: options.connection,
      bucket: names.configBucket,
      ttlMs: 0,
      history: 10,
      description: "goondan cluster config",
    });
    return new BundleAgreement(kv, options.swarm, names);
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
      const others = options.members.filter(
        (member) => member.node !== options.node && member.bundleHash !== options.hash,
      );
      if (others.length > 0) {
        const list = others.map((member) => `${member.node} (${member.bundleHash || "no hash"})`).join(", ");
        throw new ConfigError(
          "E_CLUSTER_BUNDLE_MISMATCH",
          `this node's bundle (${options.hash}) differs from the one the cluster of swarm ${this.swarm} runs (${current?.hash ?? "?"}, set by ${current?.node ?? "?"}); live nodes running another bundle: ${list}`,
          {
            suggestion:
              "Deploy the same bundle on every node; to change it, put the new bundle on every node and run `goondan restart` on one of them.",
          },
        );
      }
      try {
        // A join keeps the generation: nodes watching for reloads see no new announcement in it.
        return await this.write(
          { hash: options.hash, node: options.node, generation: current?.generation ?? 0 },
          current?.revision ?? 0,
        );
      } catch (error) {
        if (!isWrongRevision(error) || attempt === MAX_JOIN_ATTEMPTS)
          throw clusterUnavailable(`setting the cluster's bundle hash of ${this.swarm}`, error);
      }
    }
  }

  /** Announce a reload: the new bundle hash becomes the cluster's, with the next generation, and every watching node sees it. */
  async announce(options: {
    node: string;
    hash: string;
    reasons: string[];
    scope: ReloadScope;
  }): Promise<BundleRecord> {
    for (let attempt = 1; ; attempt++) {
      try {
        const current = await this.current();
        const reload: ReloadAnnouncement = { by: options.node, reasons: options.reasons, scope: options.scope };
        return await this.write(
          { hash: options.hash, node: options.node, generation: (current?.generation ?? 0) + 1, reload },
          current?.revision ?? 0,
        );
      } catch (error) {
        if (!isWrongRevision(error) || attempt === MAX_JOIN_ATTEMPTS)
          throw clusterUnavailable(`announcing bundle ${options.hash} to swarm ${this.swarm}`, error);
      }
    }
  }

  /** Calls `listener` with the cluster's bundle record as it is now (if any) and then with every later one. */
  async watch(listener: (record: BundleRecord) => void): Promise<{ stop(): void }> {
    let iterator;
    try {
      iterator = await this.kv.watch({ key: BUNDLE_CONFIG_KEY, include: KvWatchInclude.LastValue });
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

  /** Records how this node took an announcement (overwrites its previous report). */
  async report(report: ReloadReport): Promise<void> {
    try {
      await this.kv.put(this.names.reloadReportKey(report.node), JSON.stringify(report));
    } catch (error) {
      throw clusterUnavailable(`reporting node ${report.node}'s reload to swarm ${this.swarm}`, error);
    }
  }

  /** Every node's last report, by node name. */
  async reports(): Promise<ReloadReport[]> {
    const reports: ReloadReport[] = [];
    try {
      // A key written while the listing runs can be listed twice.
      const keys = new Set<string>();
      for await (const key of await this.kv.keys(this.names.reloadReportKeys)) keys.add(key);
      for (const key of keys) {
        const entry = await this.kv.get(key);
        if (entry?.operation === "PUT") reports.push(entry.json<ReloadReport>());
      }
    } catch (error) {
      throw clusterUnavailable(`reading the reload reports of swarm ${this.swarm}`, error);
    }
    return reports.sort((a, b) => a.node.localeCompare(b.node));
  }

  private async write(value: Omit<BundleRecord, "revision">, revision: number): Promise<BundleRecord> {
    const text = JSON.stringify(value);
    const written =
      revision === 0
        ? await this.kv.create(BUNDLE_CONFIG_KEY, text)
        : await this.kv.update(BUNDLE_CONFIG_KEY, text, revision);
    return { ...value, revision: written };
  }
}

function toRecord(entry: KvEntry): BundleRecord | undefined {
  if (entry.operation !== "PUT") return undefined;
  try {
    const value = entry.json<{
      hash?: unknown;
      node?: unknown;
      generation?: unknown;
      reload?: Partial<ReloadAnnouncement>;
    }>();
    if (typeof value.hash !== "string") return undefined;
    const generation =
      typeof value.generation === "number" && Number.isInteger(value.generation) ? value.generation : 0;
    const reload = value.reload;
    const announcement =
      reload !== undefined && typeof reload.by === "string"
        ? {
            by: reload.by,
            reasons: Array.isArray(reload.reasons) ? reload.reasons.map(String) : [],
            scope: typeof reload.scope === "object" && reload.scope !== null ? reload.scope : {},
          }
        : undefined;
    return {
      hash: value.hash,
      node: typeof value.node === "string" ? value.node : "",
      revision: entry.revision,
      generation,
      ...(announcement ? { reload: announcement } : {}),
    };
  } catch {
    return undefined;
  }
}
