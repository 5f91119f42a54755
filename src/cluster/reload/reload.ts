/**
 * Cluster-wide reload: a restart asked of any node (`goondan restart`, `POST /v1/restart`, self-restart, SIGHUP)
 * reloads every node. The asking node validates its bundle as on one host (an invalid one is refused there and
 * nothing is announced); its restart coordinator then calls `announce` (the bundle hash, the next reload
 * generation, who asked, the reasons and scope, in the config bucket: bundle-agreement.ts) and reloads itself.
 * Every other node sees the announcement and checks its own copy: the same hash, then the same validation and
 * reload as a local restart (through its restart coordinator, `relayed` so it is not announced again); another hash
 * or an invalid bundle, and the node keeps running its configuration, logs the error and reports it under
 * `reload.<node>` (`status`). Announcements up to the generation a node joined at are never applied. The node's
 * membership heartbeat carries the hash it runs after each reload. A node that refused runs a configuration the
 * cluster no longer runs: it drains (`drains` with the reason; node-drain.ts) until it takes a later announcement.
 */
import type { RestartCoordinator, RestartRequest } from "../../orchestrator/reload/restart-coordinator.ts";
import type { ReloadScope } from "../../orchestrator/reload/reload-plan.ts";
import type { InstanceTarget } from "../../orchestrator/reload/restart-scope.ts";
import { errorInfo, type ErrorInfo } from "../../protocol/error-info.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { BundleAgreement, BundleRecord, ReloadReport } from "./bundle-agreement.ts";
import { bundleHash } from "./bundle-hash.ts";
import type { Draining } from "../members/node-membership.ts";

export interface ClusterReloadOptions {
  agreement: BundleAgreement;
  node: string;
  bundleDir: string;
  /** The cluster's reload generation when this node joined: announcements up to it are old news. */
  joinedAt: number;
  /** The node's restart coordinator: validates and applies a relayed reload exactly as a local restart. */
  restarts: Pick<RestartCoordinator, "request">;
  /** The node now runs the bundle with this hash (its membership heartbeat says so). */
  runs: (hash: string) => void;
  /** The node refused an announcement (it drains, for this reason), or took a later one (undefined: it takes instances again). */
  drains?: (draining: Draining | undefined) => void;
  logger: Logger;
  /** Default: bundleHash. */
  hash?: (dir: string) => string;
}

/** What a node answers about the cluster's reloads (`GET /v1/cluster`). */
export interface ClusterReloadStatus {
  node: string;
  /** The bundle hash this node runs. */
  hash: string;
  /** The cluster's bundle and last announcement. */
  cluster?: BundleRecord;
  /** Every node's report of the last announcement it saw. */
  reports: ReloadReport[];
  /** Set while this node drains: it refused the cluster's last reload and takes no new instances. */
  draining?: Draining;
}

export class ClusterReload {
  private handled: number;
  private taking: Promise<void> = Promise.resolve();
  private watching: { stop(): void } | undefined;
  /** An announcement applied (or made) here whose reload has not run yet. */
  private pending: BundleRecord | undefined;
  private running: string;
  private draining: Draining | undefined;

  private constructor(private readonly options: ClusterReloadOptions) {
    this.handled = options.joinedAt;
    this.running = this.hashNow();
  }

  static async start(options: ClusterReloadOptions): Promise<ClusterReload> {
    const reload = new ClusterReload(options);
    reload.watching = await options.agreement.watch((record) => reload.seen(record));
    return reload;
  }

  /** Announces a reload this node is about to apply (a batch of restart requests made on this node). */
  async announce(options: { reasons: string[]; scope: ReloadScope }): Promise<BundleRecord> {
    const { node, agreement, logger } = this.options;
    const record = await agreement.announce({
      node,
      hash: this.hashNow(),
      reasons: options.reasons,
      scope: options.scope,
    });
    this.handled = Math.max(this.handled, record.generation);
    this.pending = record;
    logger.info(
      { generation: record.generation, hash: record.hash, reasons: options.reasons },
      "announced a reload to every node of the cluster",
    );
    return record;
  }

  /** After every reload of this node: its heartbeat carries the hash it now runs, and the announcement is reported taken. */
  async reloaded(): Promise<void> {
    try {
      this.running = this.hashNow();
      this.options.runs(this.running);
    } catch (error) {
      this.options.logger.warn(
        { error: describe(error) },
        "could not hash the bundle this node reloaded; its heartbeat keeps the hash it had",
      );
    }
    const record = this.pending;
    this.pending = undefined;
    if (record === undefined) return;
    if (this.draining !== undefined) {
      this.draining = undefined;
      this.options.drains?.(undefined);
      this.options.logger.info(
        { generation: record.generation, hash: this.running },
        "this node runs the cluster's bundle again: it takes instances again",
      );
    }
    await this.report(record, "reloaded");
  }

  async status(): Promise<ClusterReloadStatus> {
    const { agreement, node } = this.options;
    const [cluster, reports] = await Promise.all([agreement.current(), agreement.reports()]);
    return {
      node,
      hash: this.running,
      ...(cluster ? { cluster } : {}),
      reports,
      ...(this.draining ? { draining: this.draining } : {}),
    };
  }

  /** Resolves once every announcement seen so far was taken or refused (tests, shutdown). */
  idle(): Promise<void> {
    return this.taking;
  }

  stop(): void {
    this.watching?.stop();
  }

  private seen(record: BundleRecord): void {
    if (record.reload === undefined || record.generation <= this.handled) return;
    this.handled = record.generation;
    if (record.reload.by === this.options.node) return; // our own, announced by `announce`
    this.taking = this.taking
      .then(() => this.take(record))
      .catch((error: unknown) =>
        this.options.logger.error(
          { generation: record.generation, error: describe(error) },
          "could not take a cluster reload",
        ),
      );
  }

  private async take(record: BundleRecord): Promise<void> {
    const { logger } = this.options;
    const reload = record.reload as NonNullable<BundleRecord["reload"]>;
    logger.info(
      { generation: record.generation, hash: record.hash, by: reload.by, reasons: reload.reasons },
      "a node of the cluster announced a reload",
    );
    let hash: string;
    try {
      hash = this.hashNow();
    } catch (error) {
      const described = describe(error);
      return this.refuse(
        record,
        errorInfo({
          code: described.code ?? "E_CLUSTER_BUNDLE_UNREADABLE",
          message: `node ${this.options.node} could not hash its bundle: ${described.message}`,
          ...(described.suggestion ? { suggestion: described.suggestion } : {}),
        }),
      );
    }
    if (hash !== record.hash) {
      return this.refuse(record, {
        code: "E_CLUSTER_BUNDLE_MISMATCH",
        message: `node ${this.options.node} did not reload (generation ${record.generation}, asked of ${reload.by}): its bundle (${hash}) differs from the announced one (${record.hash}); it keeps running its configuration (${this.running}) until it hands its instances over, and takes no new ones`,
        suggestion: "Put the same bundle on every node, then run `goondan restart` again on one of them.",
      });
    }
    const reason = `cluster reload ${record.generation} asked of ${reload.by}: ${reload.reasons.join("; ") || "restart"}`;
    const answers = await Promise.all(
      scopeRequests(reload.scope).map((request) =>
        this.options.restarts.request({ ...request, reason, relayed: true }),
      ),
    );
    const refused = answers.find((answer) => !answer.accepted);
    if (refused?.issues.every((issue) => issue.code === "E_RESTART_CLOSED")) return; // this node is shutting down
    if (refused !== undefined) {
      return this.refuse(record, {
        code: "E_CONFIG_INVALID",
        message: `node ${this.options.node} did not reload (generation ${record.generation}): its bundle on disk is invalid: ${refused.issues.map((issue) => `${issue.path}: ${issue.code} ${issue.message}`).join("; ")}`,
        suggestion: "Fix the bundle on this node (`goondan validate`), then run `goondan restart` again.",
      });
    }
    this.pending = record;
  }

  private async refuse(record: BundleRecord, error: ErrorInfo): Promise<void> {
    this.options.logger.error(
      { generation: record.generation, announcedHash: record.hash, hash: this.running, error },
      "cluster reload refused: this node keeps running its configuration",
    );
    this.draining = {
      code: error.code,
      message: error.message,
      generation: record.generation,
      since: this.draining?.since ?? new Date().toISOString(),
    };
    this.options.drains?.(this.draining);
    await this.report(record, "refused", error);
  }

  private async report(record: BundleRecord, status: ReloadReport["status"], error?: ErrorInfo): Promise<void> {
    const report: ReloadReport = {
      node: this.options.node,
      generation: record.generation,
      status,
      hash: this.running,
      announcedHash: record.hash,
      at: new Date().toISOString(),
      ...(error ? { error } : {}),
    };
    await this.options.agreement
      .report(report)
      .catch((failure: unknown) =>
        this.options.logger.warn({ error: describe(failure) }, "could not report this node's reload to the cluster"),
      );
  }

  private hashNow(): string {
    return (this.options.hash ?? bundleHash)(this.options.bundleDir);
  }
}

/**
 * The restart requests that make a node's restart coordinator build the same scope again: a plain request per
 * restarted target and a fresh one per cleared target (a cleared target is always also restarted).
 */
export function scopeRequests(scope: ReloadScope): Array<Omit<RestartRequest, "reason">> {
  const agents = strings(scope.agents);
  const requests: Array<Omit<RestartRequest, "reason">> =
    agents === undefined ? [{}] : agents.map((agent) => ({ agent }));
  for (const target of targets(scope.instances)) requests.push(target);
  if (scope.fresh === true) requests.push({ fresh: true });
  for (const agent of strings(scope.freshAgents) ?? []) requests.push({ agent, fresh: true });
  for (const target of targets(scope.freshInstances)) requests.push({ ...target, fresh: true });
  return requests;
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : undefined;
}

function targets(value: unknown): InstanceTarget[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((item): item is InstanceTarget => typeof item?.agent === "string" && typeof item?.instanceKey === "string")
    .map((item) => ({ agent: item.agent, instanceKey: item.instanceKey }));
}
