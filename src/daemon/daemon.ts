import { validateBundleOnDisk } from "../config/validate-on-disk.ts";
import type { BundleWatcher } from "../config/watch-bundle.ts";
import { describe, SystemError, UsageError } from "../shared/errors.ts";
import { connectorRows, type ProcessInfo } from "../supervision/process-table.ts";
import { startConnectors, type ConnectorHost } from "../connector/host/connector-host.ts";
import { Orchestrator } from "../orchestrator/orchestrator.ts";
import type { ReloadPlan } from "../orchestrator/reload/reload-plan.ts";
import { createRestartCoordinator, type RestartCoordinator } from "../orchestrator/reload/restart-coordinator.ts";
import type { ApiBackend } from "../http/api-backend.ts";
import { serveHttpApi, type ServedApi } from "../http/http-api.ts";
import { SwarmMetrics } from "../observability/swarm-metrics.ts";
import { traceExportSettings, type TraceExportSettings } from "../observability/otel-settings.ts";
import type { TraceExport } from "../observability/trace-export.ts";
import { swarmView } from "../orchestrator/swarm-view.ts";
import { checkStateStore, openStateStore } from "../store/open-state-store.ts";
import type { ClusterNode } from "../cluster/node/node.ts";
import { storedConversation } from "../cluster/view/reads.ts";
import type { ClusterReload, ClusterReloadStatus } from "../cluster/reload/reload.ts";
import type { DaemonOptions } from "./daemon-options.ts";
import { listenForReloadSignal, startWatchReload } from "./watch-reload.ts";
import { orchestratorIngest } from "./orchestrator-ingest.ts";
import { startSchedules, type DaemonSchedules } from "./daemon-schedules.ts";
import { startClusterSchedules } from "./cluster-schedules.ts";
import { evalRuns } from "../store/eval-runs.ts";

export type { DaemonOptions };

export class Daemon {
  readonly orchestrator: Orchestrator;
  readonly restarts: RestartCoordinator;
  readonly backend: ApiBackend;
  private connectors: ConnectorHost | undefined;
  private schedules: DaemonSchedules | undefined;
  private bundleWatcher: BundleWatcher | undefined;
  private api: ServedApi | undefined;
  private stopHangup: (() => void) | undefined;
  private traces: TraceExport | undefined;
  private clusterReload: ClusterReload | undefined;

  private constructor(
    private readonly options: DaemonOptions,
    readonly cluster?: ClusterNode,
  ) {
    const { logger } = options;
    this.restarts = createRestartCoordinator({
      loadBundle: () => this.loadFromDisk(),
      reload: (plan) => this.reload(plan),
      logger,
      ...(options.coalesceMs !== undefined ? { coalesceMs: options.coalesceMs } : {}),
    });
    this.orchestrator = new Orchestrator({
      bundle: options.bundle,
      swarm: options.swarm,
      stateRoot: options.stateRoot,
      spawner: options.spawner,
      env: options.env,
      logger,
      restarts: this.restarts,
      ...(options.childEnv ? { childEnv: options.childEnv } : {}),
      ...(cluster
        ? {
            placement: cluster,
            store: cluster.store(
              openStateStore({
                stateRoot: options.stateRoot,
                logger,
                clusterNode: {
                  node: cluster.node,
                  swarm: swarmView({ bundle: options.bundle, swarm: options.swarm }).instanceKey,
                },
              }),
            ),
          }
        : {}),
    });
    const orchestrator = this.orchestrator;
    const metrics = new SwarmMetrics({
      processes: () => this.processes(),
      budgets: () => orchestrator.budgets(),
      ...(orchestrator.store.syncs === undefined ? {} : { storeSyncs: () => orchestrator.store.syncs }),
    });
    orchestrator.onRuntimeEvents((rows) => metrics.observe(rows.map((row) => row.event)));
    // Cluster mode: this node's events go to the nodes that watch (live-events.ts), while one does.
    const live = cluster?.live();
    if (live) orchestrator.onRuntimeEvents((rows) => live.publish(rows.map((row) => row.event)));
    this.backend = {
      orchestrator,
      metrics,
      processes: () => this.processes(),
      restart: (request) => this.restarts.request(request),
      evals: evalRuns(options.stateRoot),
      schedules: {
        list: async () => (await this.schedules?.list()) ?? [],
        run: async (connection) => this.schedules?.run(connection),
      },
      ...(cluster
        ? {
            cluster: {
              reads: cluster.reads(),
              ...(live ? { live } : {}),
              status: () => this.clusterStatus(),
              standing: () => cluster.status(),
            },
          }
        : {}),
    };
  }

  /** Starts everything: resumes the inboxes, then the API, the connectors, `--watch` and SIGHUP. */
  static async start(options: DaemonOptions): Promise<Daemon> {
    const traceSettings = traceExportSettings(options.env); // E_OTEL_CONFIG_INVALID before anything starts
    // A damaged state database refuses the start (E_STORE_CORRUPT) before anything reads it.
    await checkStateStore({ stateRoot: options.stateRoot, logger: options.logger });
    const cluster = options.cluster ? await joinCluster(options, options.cluster) : undefined;
    const daemon = new Daemon(options, cluster);
    try {
      if (cluster) {
        const orchestrator = daemon.orchestrator;
        await cluster.attach({
          acceptHere: (event) => orchestrator.acceptHere(event),
          release: (agent, instanceKey, reason) => orchestrator.release(agent, instanceKey, reason),
          answeredElsewhere: (event, outcome) => orchestrator.answeredElsewhere(event, outcome),
          processes: () => daemon.processes(),
          instances: () => orchestrator.instances(),
          runtimeEvents: (query) => orchestrator.runtimeEvents(query),
          conversation: (agent, instanceKey) => storedConversation(orchestrator, agent, instanceKey),
          eventState: (eventId) => orchestrator.eventState(eventId),
          approvals: orchestrator.approvals,
          scheduled: () => orchestrator.scheduled(),
        });
      }
    } catch (error) {
      await cluster?.stop();
      throw error;
    }
    await daemon.startParts(traceSettings);
    if (cluster) daemon.clusterReload = await cluster.startReload(daemon.restarts);
    return daemon;
  }

  /** The HTTP API's address, when it serves one. */
  get address(): { host: string; port: number } | undefined {
    return this.api ? { host: this.api.host, port: this.api.port } : undefined;
  }

  /** The `--watch` file watcher, when watching (its `idle()` settles once the changes so far are applied). */
  get watcher(): BundleWatcher | undefined {
    return this.bundleWatcher;
  }

  /** Agents and connectors. */
  processes(): ProcessInfo[] {
    return [...this.orchestrator.processes(), ...connectorRows(this.connectors?.processes() ?? [])];
  }

  /** Stops watching and signals, then the connectors, the restart coordinator, the agents, and the API last. */
  async stop(reason: string): Promise<void> {
    this.stopHangup?.();
    await this.bundleWatcher?.close();
    await this.schedules?.stop();
    await this.connectors?.stop();
    this.restarts.close();
    await this.orchestrator.shutdown({ reason });
    await this.traces?.shutdown();
    await this.cluster?.stop();
    await this.api?.stop();
  }

  private async startParts(traceSettings: TraceExportSettings | undefined): Promise<void> {
    const { options, orchestrator } = this;
    const { logger } = options;
    // OpenTelemetry is loaded only when the environment asks for it; spans go from the events of the first turn on.
    if (traceSettings) {
      const { startTraceExport } = await import("../observability/trace-export.ts");
      const traces = await startTraceExport({
        settings: traceSettings,
        swarm: orchestrator.swarm.name,
        logger,
        ...(options.env.GOONDAN_NODE ? { node: options.env.GOONDAN_NODE } : {}),
      });
      this.traces = traces;
      orchestrator.onRuntimeEvents((rows) => traces.observe(rows.map((row) => row.event)));
    }
    await orchestrator.start();
    if (options.http) {
      const { host, port } = options.http;
      try {
        this.api = serveHttpApi({ backend: this.backend, logger, ...options.http });
      } catch (error) {
        await this.stop("startup failed");
        if (error instanceof UsageError) throw error; // E_API_TOKEN_REQUIRED: beyond loopback without a token
        throw new SystemError("E_RUN_LISTEN", `cannot listen on ${host}:${port}: ${describe(error).message}`, {
          suggestion: "pick another --port (0 picks a free one)",
        });
      }
    }
    if (options.connectors !== false) {
      this.connectors = await startConnectors({
        bundle: orchestrator.currentBundle,
        swarm: orchestrator.swarm.name,
        ingest: orchestratorIngest(orchestrator),
        approvals: {
          get: (id) => orchestrator.approvals.get(id),
          decide: (request) => orchestrator.approvals.decide({ ...request, wait: true }),
          signal: (name, payload) => orchestrator.approvals.signal(name, payload),
        },
        policy: () => orchestrator.swarm.policy,
        env: options.env,
        logger,
        stateRoot: options.stateRoot,
        ...(options.connectorSpawner ? { spawner: options.connectorSpawner } : {}),
      });
    }
    if (options.connectors !== false) {
      const parts = { orchestrator, swarm: options.swarm, env: options.env, logger };
      const metrics = this.backend.metrics as SwarmMetrics;
      // In a cluster one node fires each schedule: the one holding its lease (cluster-schedules.ts).
      this.schedules = this.cluster
        ? await startClusterSchedules({
            ...parts,
            metrics,
            leases: await this.cluster.scheduleLeases(),
            node: this.cluster.node,
          })
        : await startSchedules({ ...parts, metrics });
    }
    if (options.watch) {
      this.bundleWatcher = await startWatchReload({
        initial: orchestrator.currentBundle,
        load: () => this.loadFromDisk(),
        apply: (plan, connections) => this.reload(plan, connections),
        logger,
      });
      logger.info({ files: this.bundleWatcher.files().length }, "watching the bundle for changes");
    }
    if (options.reloadSignal !== false) this.stopHangup = listenForReloadSignal({ coordinator: this.restarts, logger });
  }

  /** The bundle on disk with every check, plus the env vars the running Swarm reads. */
  private loadFromDisk() {
    return validateBundleOnDisk({ target: this.options.bundle.dir, swarm: this.options.swarm, env: this.options.env });
  }

  /** A reload: the agents first, then the connectors (`connections` restart even if they look unchanged). */
  private async reload(plan: ReloadPlan, connections: readonly string[] = []): Promise<void> {
    if (plan.announce === true) await this.announce(plan);
    await this.orchestrator.reload(plan);
    await this.connectors?.apply({ bundle: plan.bundle, connections });
    await this.schedules?.apply(plan.bundle);
    await this.clusterReload?.reloaded();
  }

  /** Cluster mode: tells every other node to reload as this one does; when NATS cannot take it, only this node reloads. */
  private async announce(plan: ReloadPlan): Promise<void> {
    if (this.clusterReload === undefined) return;
    const { agents, instances, fresh, freshAgents, freshInstances } = plan;
    const scope = {
      ...(agents ? { agents } : {}),
      ...(instances ? { instances } : {}),
      ...(fresh ? { fresh } : {}),
      ...(freshAgents ? { freshAgents } : {}),
      ...(freshInstances ? { freshInstances } : {}),
    };
    try {
      await this.clusterReload.announce({ reasons: plan.reasons ?? [], scope });
    } catch (error) {
      this.options.logger.error(
        { error: describe(error) },
        "could not announce the reload to the cluster: only this node reloads; run `goondan restart` again once NATS is back",
      );
    }
  }

  /** `GET /v1/cluster`: this node, the bundle hash it runs, the cluster's, and how each node took the last reload. */
  private async clusterStatus(): Promise<ClusterReloadStatus> {
    if (this.clusterReload === undefined)
      throw new SystemError("E_CLUSTER_UNAVAILABLE", "this node is still joining its cluster");
    return this.clusterReload.status();
  }
}

/** Loaded only on a cluster node: the NATS client and the cluster's modules are a tenth of a lone host's start. */
async function joinCluster(
  options: DaemonOptions,
  cluster: NonNullable<DaemonOptions["cluster"]>,
): Promise<ClusterNode> {
  const view = swarmView({ bundle: options.bundle, swarm: options.swarm });
  const { ClusterNode } = await import("../cluster/node/node.ts");
  return ClusterNode.join({
    settings: cluster.settings,
    swarm: view.instanceKey,
    bundleDir: options.bundle.dir,
    maxProcesses: view.policy.lifecycle.maxInstances,
    logger: options.logger,
    ...(cluster.ttlMs !== undefined ? { ttlMs: cluster.ttlMs } : {}),
  });
}
