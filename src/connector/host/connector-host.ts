/**
 * The running swarm's connectors: starts one supervised connector child per Connection of the Swarm,
 * feeds their routed events into the orchestrator (`ingest`, durable before the connector's ack) and
 * their turns' outcomes back as replies, applies a reloaded bundle (restarting only the Connections
 * whose resources changed, re-routing the others in place) and lists them for `GET /v1/processes`.
 */
import type { Bundle } from "../../config/types.ts";
import { selectSwarm } from "../../config/resolve.ts";
import type { Env } from "../../config/value-source.ts";
import { diffBundles } from "../../config/bundle-diff.ts";
import type { Clock } from "../../shared/clock.ts";
import type { Logger } from "../../shared/logger.ts";
import { silentLogger } from "../../shared/logger.ts";
import { describe } from "../../shared/errors.ts";
import type { Orchestrator } from "../../orchestrator/orchestrator.ts";
import type { ProcessInfo } from "../../supervision/process-table.ts";
import { bunProcessSpawner, type ProcessSpawner } from "../../supervision/process-spawner.ts";
import { DEFAULT_RESTART_POLICY } from "../../supervision/restart-policy.ts";
import { CONNECTOR_ENTRY_SCRIPT } from "../entry.ts";
import { ConnectorSupervisor, type ConnectorIngest } from "./connector-supervisor.ts";
import { connectorRunSpecs } from "./connection-plan.ts";

export interface ConnectorHostOptions {
  orchestrator: Pick<Orchestrator, "ingest" | "swarm">;
  bundle: Bundle;
  /** The Swarm's name (default: the bundle's only one). */
  swarm?: string;
  /** Resolves the Connections' ValueSources. */
  env: Env;
  /** Default: `bunProcessSpawner` running the connector entry script, output to fd 1. */
  spawner?: ProcessSpawner;
  clock?: Clock;
  logger?: Logger;
}

export interface ConnectorHost {
  /** Applies a reloaded bundle; `connections` names ones to restart even if their resources look the same. */
  apply(options: { bundle: Bundle; connections?: readonly string[] }): Promise<void>;
  /** Connector rows for the process table. */
  processes(): ProcessInfo[];
  stop(options: { gracePeriodMs: number }): Promise<void>;
}

/** Adapts the orchestrator's `ingest` (durable when it returns) to what the connector supervisor expects. */
export function orchestratorIngest(orchestrator: Pick<Orchestrator, "ingest">): ConnectorIngest {
  return async (request) => {
    const submitted = orchestrator.ingest({
      connection: request.connection,
      input: request.input,
      agent: request.agent,
      instanceKey: request.instanceKey,
      type: request.type,
      metadata: request.metadata,
    });
    return { eventId: submitted.eventId, ...(request.wantsReply ? { reply: submitted.outcome } : {}) };
  };
}

export async function startConnectors(options: ConnectorHostOptions): Promise<ConnectorHost> {
  const logger = options.logger ?? silentLogger();
  const { orchestrator } = options;
  const supervisor = new ConnectorSupervisor({
    spawner: options.spawner ?? bunProcessSpawner({ entryScript: CONNECTOR_ENTRY_SCRIPT, env: options.env }),
    ingest: orchestratorIngest(orchestrator),
    policy: () => orchestrator.swarm.policy.restart ?? DEFAULT_RESTART_POLICY,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  let current = options.bundle;
  const specsFor = (bundle: Bundle) => connectorRunSpecs({ bundle, swarm: selectSwarm(bundle, options.swarm ?? orchestrator.swarm.name), env: options.env });

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
      const gracePeriodMs = orchestrator.swarm.policy.shutdown.gracePeriodSeconds * 1000;
      await Promise.all(supervisor.connections().filter((name) => !wanted.has(name)).map((name) => supervisor.stop(name, { gracePeriodMs })));
      const running = new Set(supervisor.connections());
      for (const spec of specs) {
        if (!running.has(spec.connection) || changed.has(spec.connection)) await supervisor.start(spec);
        else supervisor.updateRouting(spec);
      }
    },
    processes() {
      return supervisor.list().map((info) => ({
        kind: "connector" as const,
        agent: `connector:${info.connection}`,
        instanceKey: info.connector,
        pid: info.pid ?? null,
        status: info.status,
        restarts: info.restarts,
        consecutiveCrashes: info.consecutiveCrashes,
        startedAt: info.startedAt ?? null,
        queued: 0,
      }));
    },
    stop: (stopOptions) => supervisor.stopAll(stopOptions),
  };
}
