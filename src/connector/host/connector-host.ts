/**
 * The running swarm's connectors: one supervised connector child per Connection of the Swarm, their routed
 * events handed to the agents through `ingest` (durable before the connector's ack) and the turns' outcomes back
 * as replies; a reloaded bundle is applied by restarting only the Connections whose resources changed and
 * re-routing the others in place. Knows nothing of the orchestrator: the daemon binds `ingest` and the policy.
 */
import type { Bundle, SwarmPolicy } from "../../config/types.ts";
import { selectSwarm } from "../../config/resolve.ts";
import type { Env } from "../../config/value-source.ts";
import { diffBundles } from "../../config/bundle-diff.ts";
import type { Clock } from "../../shared/clock.ts";
import { describe } from "../../shared/errors.ts";
import { silentLogger, type Logger } from "../../shared/logger.ts";
import { CONNECTOR_ENTRY_SCRIPT } from "../../protocol/child-entry.ts";
import { bunProcessSpawner, type ProcessSpawner } from "../../supervision/process-spawner.ts";
import { connectorRunSpecs } from "./connection-plan.ts";
import type { ConnectorProcessInfo } from "./connector-link.ts";
import type { ConnectorApprovals, ConnectorIngest } from "./connector-run-spec.ts";
import { ConnectorSupervisor } from "./connector-supervisor.ts";

export interface ConnectorHostOptions {
  bundle: Bundle;
  /** The Swarm's name. */
  swarm: string;
  /** Hands a routed event to the agents (the orchestrator's `ingest`). */
  ingest: ConnectorIngest;
  /** Held tool calls connectors may read and decide (the cli connector's prompt). */
  approvals?: ConnectorApprovals;
  /** The Swarm policy now in force (restart policy, shutdown grace). */
  policy: () => SwarmPolicy;
  /** Resolves the Connections' ValueSources. */
  env: Env;
  /** Default: `bunProcessSpawner` running the connector entry script, output to fd 1. */
  spawner?: ProcessSpawner;
  clock?: Clock;
  logger?: Logger;
  /** Hidden from every connector's sandbox (the state root: goondan.db, the API token). */
  stateRoot?: string;
}

export interface ConnectorHost {
  /** Applies a reloaded bundle; `connections` names ones to restart even if their resources look the same. */
  apply(options: { bundle: Bundle; connections?: readonly string[] }): Promise<void>;
  /** Connector rows for the process table. */
  processes(): ConnectorProcessInfo[];
  stop(): Promise<void>;
}

export async function startConnectors(options: ConnectorHostOptions): Promise<ConnectorHost> {
  const logger = options.logger ?? silentLogger();
  const supervisor = new ConnectorSupervisor({
    spawner: options.spawner ?? bunProcessSpawner({ entryScript: CONNECTOR_ENTRY_SCRIPT, env: options.env }),
    ingest: options.ingest,
    ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
    policy: () => options.policy().restart,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.stateRoot === undefined ? {} : { stateRoot: options.stateRoot }),
  });
  const gracePeriodMs = () => options.policy().shutdown.gracePeriodSeconds * 1000;
  let current = options.bundle;
  const specsFor = (bundle: Bundle) =>
    connectorRunSpecs({ bundle, swarm: selectSwarm(bundle, options.swarm), env: options.env });

  for (const spec of specsFor(current)) await supervisor.start(spec);

  return {
    async apply({ bundle, connections = [] }) {
      let specs: ReturnType<typeof specsFor>;
      try {
        specs = specsFor(bundle);
      } catch (error) {
        logger.error({ error: describe(error) }, "connectors not reloaded; the running ones keep their old settings");
        return;
      }
      const changed = new Set([...diffBundles({ previous: current, next: bundle }).connections, ...connections]);
      current = bundle;
      const wanted = new Set(specs.map((spec) => spec.connection));
      await Promise.all(
        supervisor
          .connections()
          .filter((name) => !wanted.has(name))
          .map((name) => supervisor.stop(name, { gracePeriodMs: gracePeriodMs() })),
      );
      const running = new Set(supervisor.connections());
      for (const spec of specs) {
        if (!running.has(spec.connection) || changed.has(spec.connection)) await supervisor.start(spec);
        else supervisor.updateRouting(spec);
      }
    },
    processes: () => supervisor.list(),
    stop: () => supervisor.stopAll({ gracePeriodMs: gracePeriodMs() }),
  };
}
