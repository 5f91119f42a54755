/**
 * `goondan run --watch` and SIGHUP: file changes are validated and applied as a reload of only the affected
 * agents (orchestrator-only policy changes restart nothing; a change to the policy children read restarts the
 * swarm's agents), plus the connectors whose Connections changed; an invalid change is logged and the swarm
 * keeps running. SIGHUP asks the restart coordinator for a full, validated restart.
 */
import type { Bundle, ConfigIssue } from "../config/types.ts";
import { watchBundle, type BundleWatcher } from "../config/watch-bundle.ts";
import type { Logger } from "../shared/logger.ts";
import { silentLogger } from "../shared/logger.ts";
import type { ReloadPlan } from "../orchestrator/reload/reload-plan.ts";
import type { RestartCoordinator } from "../orchestrator/reload/restart-coordinator.ts";

export interface WatchReloadOptions {
  /** The bundle running now. */
  initial: Bundle;
  /** Loads and validates the bundle on disk (see validateBundleOnDisk). */
  load: () => Promise<{ valid: boolean; bundle?: Bundle; errors: ConfigIssue[] }>;
  /** Applies a valid change: the plan to the agents, then to the connectors (`connections` restart). */
  apply: (plan: ReloadPlan, connections: readonly string[]) => Promise<void>;
  logger?: Logger;
  /** Default 200 ms. */
  debounceMs?: number;
}

export function startWatchReload(options: WatchReloadOptions): Promise<BundleWatcher> {
  const logger = options.logger ?? silentLogger();
  return watchBundle({
    initial: options.initial,
    load: options.load,
    logger,
    ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
    onInvalid: ({ errors, changedFiles }) => {
      logger.error(
        { files: changedFiles, issues: errors.map((issue) => `${issue.path}: ${issue.code} ${issue.message}`) },
        "invalid bundle change ignored; the running swarm is unchanged",
      );
    },
    onChange: ({ next, diff, changedFiles }) =>
      options.apply(
        { bundle: next, agents: diff.agents, reasons: [`watch: ${changedFiles.join(", ")}`] },
        diff.connections,
      ),
  });
}

/** SIGHUP → a full validated restart through the coordinator. Returns a function removing the handler. */
export function listenForReloadSignal(options: {
  coordinator: Pick<RestartCoordinator, "request">;
  logger?: Logger;
}): () => void {
  const onHangup = () => {
    void options.coordinator.request({ reason: "SIGHUP" }).then((answer) => {
      if (!answer.accepted)
        options.logger?.error({ issues: answer.issues }, "SIGHUP restart refused: the bundle on disk is invalid");
    });
  };
  process.on("SIGHUP", onHangup);
  return () => void process.off("SIGHUP", onHangup);
}
