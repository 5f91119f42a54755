/**
 * What `goondan run` adds around a started orchestrator to make it changeable and reachable: the
 * Connections' connector processes, `--watch` (partial reloads on file changes) and SIGHUP (a full,
 * validated restart), plus the reload the restart coordinator applies (agents, then connectors) and
 * a process table that lists connectors next to agents. `stop` undoes all of it, connectors first.
 */
import type { Bundle, ConfigIssue } from "../config/types.ts";
import type { BundleWatcher } from "../config/watch-bundle.ts";
import type { Env } from "../config/value-source.ts";
import type { Logger } from "../shared/logger.ts";
import type { Orchestrator, ReloadOptions } from "../orchestrator/orchestrator.ts";
import type { ProcessInfo } from "../supervision/process-table.ts";
import type { ProcessSpawner } from "../supervision/process-spawner.ts";
import { startConnectors, type ConnectorHost } from "../connector/host/connector-host.ts";
import type { RestartCoordinator } from "../orchestrator/reload/restart-coordinator.ts";
import { listenForReloadSignal, startWatchReload } from "../orchestrator/reload/watch-reload.ts";

export interface LiveOperationsOptions {
  orchestrator: Orchestrator;
  coordinator: Pick<RestartCoordinator, "request">;
  /** Validates the bundle on disk (validateBundleOnDisk bound to the bundle and env). */
  load: () => Promise<{ valid: boolean; bundle?: Bundle; errors: ConfigIssue[] }>;
  env: Env;
  /** `--watch`. */
  watch: boolean;
  logger: Logger;
  /** Default: the connector entry script through bunProcessSpawner. */
  connectorSpawner?: ProcessSpawner;
}

export interface LiveOperations {
  connectors: ConnectorHost;
  watcher: BundleWatcher | undefined;
  /** Agents and connectors, for `GET /v1/processes`. */
  processes(): ProcessInfo[];
  stop(): Promise<void>;
}

/** The reload a restart applies: the orchestrator's agents, then the connectors (when they are running). */
export async function applyReload(options: { orchestrator: Pick<Orchestrator, "reload">; connectors: ConnectorHost | undefined; plan: ReloadOptions }): Promise<void> {
  await options.orchestrator.reload(options.plan);
  await options.connectors?.apply({ bundle: options.plan.bundle });
}

export async function startLiveOperations(options: LiveOperationsOptions): Promise<LiveOperations> {
  const { orchestrator, logger } = options;
  const connectors = await startConnectors({
    orchestrator,
    bundle: orchestrator.currentBundle,
    swarm: orchestrator.swarm.name,
    env: options.env,
    logger,
    ...(options.connectorSpawner ? { spawner: options.connectorSpawner } : {}),
  });
  const watcher = options.watch ? await startWatchReload({ orchestrator, load: options.load, connectors, logger }) : undefined;
  const stopHangup = listenForReloadSignal({ coordinator: options.coordinator, logger });
  if (watcher) logger.info({ files: watcher.files().length }, "watching the bundle for changes");
  return {
    connectors,
    watcher,
    processes: () => [...orchestrator.processes(), ...connectors.processes()],
    async stop() {
      stopHangup();
      await watcher?.close();
      await connectors.stop({ gracePeriodMs: orchestrator.swarm.policy.shutdown.gracePeriodSeconds * 1000 });
    },
  };
}

/** The orchestrator as the HTTP API sees it, with connector rows added to `processes()` once `live` runs. */
export function withConnectorProcesses<T extends Pick<Orchestrator, "processes">>(orchestrator: T, live: () => LiveOperations | undefined): T {
  return new Proxy(orchestrator, {
    get(target, property, receiver) {
      if (property === "processes") return () => live()?.processes() ?? target.processes();
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
