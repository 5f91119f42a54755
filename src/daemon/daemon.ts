/**
 * The one composition root of a running swarm: the orchestrator (agents), the restart coordinator every restart
 * ask goes through (self-restart, SIGHUP, `goondan restart`, `POST /v1/restart`), the HTTP API, the Connections'
 * connector children, `--watch` and SIGHUP — built here, in this order, and stopped in reverse (watch and
 * signals, connectors, coordinator, agents, then the API). A reload applies to the agents, then the connectors.
 */
import type { Bundle } from "../config/types.ts";
import type { Env } from "../config/value-source.ts";
import { validateBundleOnDisk } from "../config/validate-on-disk.ts";
import type { BundleWatcher } from "../config/watch-bundle.ts";
import { describe, SystemError, UsageError } from "../shared/errors.ts";
import type { Logger } from "../shared/logger.ts";
import type { ProcessSpawner } from "../supervision/process-spawner.ts";
import { connectorRows, type ProcessInfo } from "../supervision/process-table.ts";
import { startConnectors, type ConnectorHost } from "../connector/host/connector-host.ts";
import { Orchestrator } from "../orchestrator/orchestrator.ts";
import type { ReloadPlan } from "../orchestrator/reload/reload-plan.ts";
import { createRestartCoordinator, type RestartCoordinator } from "../orchestrator/reload/restart-coordinator.ts";
import type { ApiListenOptions } from "../http/api-access.ts";
import type { ApiBackend } from "../http/api-backend.ts";
import { serveHttpApi, type ServedApi } from "../http/http-api.ts";
import { SwarmMetrics } from "../observability/swarm-metrics.ts";
import { traceExportSettings, type TraceExportSettings } from "../observability/otel-settings.ts";
import type { TraceExport } from "../observability/trace-export.ts";
import { listenForReloadSignal, startWatchReload } from "./watch-reload.ts";

export interface DaemonOptions {
  bundle: Bundle;
  swarm: string;
  stateRoot: string;
  /** Children's variables and the Connections' ValueSources are taken from here. */
  env: Env;
  logger: Logger;
  /** Spawns agent children. */
  spawner: ProcessSpawner;
  /** Spawns connector children. Default: the connector entry through bunProcessSpawner. */
  connectorSpawner?: ProcessSpawner;
  /** Extra environment for agent children (GOONDAN_RECORD_CASSETTE). Default: none. */
  childEnv?: Record<string, string>;
  /** Serve the HTTP API (where, and who may use it). Default: no API (`run --input`). */
  http?: ApiListenOptions;
  /** Run the Swarm's Connections. Default true. */
  connectors?: boolean;
  /** `--watch`. Default false. */
  watch?: boolean;
  /** SIGHUP restarts. Default true. */
  reloadSignal?: boolean;
  /** Restart requests within this window become one reload. Default: the coordinator's. */
  coalesceMs?: number;
}

export class Daemon {
  readonly orchestrator: Orchestrator;
  readonly restarts: RestartCoordinator;
  readonly backend: ApiBackend;
  private connectors: ConnectorHost | undefined;
  private bundleWatcher: BundleWatcher | undefined;
  private api: ServedApi | undefined;
  private stopHangup: (() => void) | undefined;
  private traces: TraceExport | undefined;

  private constructor(private readonly options: DaemonOptions) {
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
    });
    const orchestrator = this.orchestrator;
    const metrics = new SwarmMetrics({ processes: () => this.processes() });
    orchestrator.onRuntimeEvents((events) => metrics.observe(events));
    this.backend = {
      metrics,
      get swarm() {
        return orchestrator.swarm;
      },
      submit: (submit) => orchestrator.submit(submit),
      processes: () => this.processes(),
      instances: () => orchestrator.instances(),
      runtimeEvents: (query) => orchestrator.runtimeEvents(query),
      eventState: (eventId) => orchestrator.eventState(eventId),
      watch: (listener) => orchestrator.onRuntimeEvents(listener),
      messages: (agent, instanceKey) => orchestrator.messages(agent, instanceKey),
      restart: (request) => this.restarts.request(request),
      approvals: { pending: () => orchestrator.approvals.pending(), decide: (request) => orchestrator.approvals.decide(request) },
    };
  }

  /** Starts everything: resumes the inboxes, then the API, the connectors, `--watch` and SIGHUP. */
  static async start(options: DaemonOptions): Promise<Daemon> {
    const traceSettings = traceExportSettings(options.env); // E_OTEL_CONFIG_INVALID before anything starts
    const daemon = new Daemon(options);
    await daemon.startParts(traceSettings);
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
    await this.connectors?.stop();
    this.restarts.close();
    await this.orchestrator.shutdown({ reason });
    await this.traces?.shutdown();
    await this.api?.stop();
  }

  private async startParts(traceSettings: TraceExportSettings | undefined): Promise<void> {
    const { options, orchestrator } = this;
    const { logger } = options;
    // OpenTelemetry is loaded only when the environment asks for it; spans go from the events of the first turn on.
    if (traceSettings) {
      const { startTraceExport } = await import("../observability/trace-export.ts");
      const traces = await startTraceExport({ settings: traceSettings, swarm: orchestrator.swarm.name, logger, ...(options.env.GOONDAN_NODE ? { node: options.env.GOONDAN_NODE } : {}) });
      this.traces = traces;
      orchestrator.onRuntimeEvents((events) => traces.observe(events));
    }
    await orchestrator.start();
    if (options.http) {
      const { host, port } = options.http;
      try {
        this.api = serveHttpApi({ backend: this.backend, logger, ...options.http });
      } catch (error) {
        await this.stop("startup failed");
        if (error instanceof UsageError) throw error; // E_API_TOKEN_REQUIRED: beyond loopback without a token
        throw new SystemError("E_RUN_LISTEN", `cannot listen on ${host}:${port}: ${describe(error).message}`, { suggestion: "pick another --port (0 picks a free one)" });
      }
    }
    if (options.connectors !== false) {
      this.connectors = await startConnectors({
        bundle: orchestrator.currentBundle,
        swarm: orchestrator.swarm.name,
        ingest: async (request) => {
          const submitted = orchestrator.ingest({
            connection: request.connection,
            input: request.input,
            agent: request.agent,
            instanceKey: request.instanceKey,
            type: request.type,
            metadata: request.metadata,
            ...(request.onProgress ? { onProgress: request.onProgress } : {}),
          });
          await submitted.accepted;
          return { eventId: submitted.eventId, ...(request.wantsReply ? { reply: submitted.outcome } : {}) };
        },
        approvals: { get: (id) => orchestrator.approvals.get(id), decide: (request) => orchestrator.approvals.decide({ ...request, wait: true }) },
        policy: () => orchestrator.swarm.policy,
        env: options.env,
        logger,
        ...(options.connectorSpawner ? { spawner: options.connectorSpawner } : {}),
      });
    }
    if (options.watch) {
      this.bundleWatcher = await startWatchReload({ initial: orchestrator.currentBundle, load: () => this.loadFromDisk(), apply: (plan, connections) => this.reload(plan, connections), logger });
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
    await this.orchestrator.reload(plan);
    await this.connectors?.apply({ bundle: plan.bundle, connections });
  }
}
