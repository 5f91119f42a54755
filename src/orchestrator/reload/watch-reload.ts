/**
 * `goondan run --watch` and SIGHUP, wired to a running orchestrator: file changes are validated and
 * applied as a reload of only the affected agents (orchestrator-only policy changes restart nothing; a
 * change to the policy children read restarts the swarm's agents), plus the connectors whose Connections
 * changed; an invalid change is logged and the swarm keeps running.
 * SIGHUP asks the restart coordinator for a full, validated restart.
 */
import type { Bundle, ConfigIssue } from "../../config/types.ts";
import { watchBundle, type BundleWatcher } from "../../config/watch-bundle.ts";
import type { Logger } from "../../shared/logger.ts";
import { silentLogger } from "../../shared/logger.ts";
import type { Orchestrator } from "../orchestrator.ts";
import type { ConnectorHost } from "../../connector/host/connector-host.ts";
import type { RestartCoordinator } from "./restart-coordinator.ts";

export interface WatchReloadOptions {
  orchestrator: Pick<Orchestrator, "reload" | "currentBundle">;
  /** Loads and validates the bundle on disk (see validateBundleOnDisk). */
  load: () => Promise<{ valid: boolean; bundle?: Bundle; errors: ConfigIssue[] }>;
  connectors?: ConnectorHost;
  logger?: Logger;
  /** Default 200 ms. */
  debounceMs?: number;
}

export function startWatchReload(options: WatchReloadOptions): Promise<BundleWatcher> {
  const logger = options.logger ?? silentLogger();
  return watchBundle({
    initial: options.orchestrator.currentBundle,
    load: options.load,
    logger,
    ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
    onInvalid: ({ errors, changedFiles }) => {
      logger.error({ files: changedFiles, issues: errors.map((issue) => `${issue.path}: ${issue.code} ${issue.message}`) }, "invalid bundle change ignored; the running swarm is unchanged");
    },
    onChange: async ({ next, diff, changedFiles }) => {
      await options.orchestrator.reload({ bundle: next, agents: diff.agents, reasons: [`watch: ${changedFiles.join(", ")}`] });
      await options.connectors?.apply({ bundle: next, connections: diff.connections });
    },
  });
}

/** SIGHUP → a full validated restart through the coordinator. Returns a function removing the handler. */
export function listenForReloadSignal(options: { coordinator: Pick<RestartCoordinator, "request">; logger?: Logger }): () => void {
  const onHangup = () => {
    void options.coordinator.request({ reason: "SIGHUP" }).then((answer) => {
      if (!answer.accepted) options.logger?.error({ issues: answer.issues }, "SIGHUP restart refused: the bundle on disk is invalid");
    });
  };
  process.on("SIGHUP", onHangup);
  return () => void process.off("SIGHUP", onHangup);
}
