/**
 * The connectors of a running swarm: one ConnectorLink (a supervised connector child) per Connection, started,
 * stopped (asked, then killed after the grace period; in reverse start order for all), re-routed in place, and
 * listed for the process table. A connector never takes the orchestrator down.
 */
import { systemClock, type Clock } from "../../shared/clock.ts";
import { silentLogger, type Logger } from "../../shared/logger.ts";
import type { ProcessSpawner } from "../../supervision/process-spawner.ts";
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from "../../supervision/restart-policy.ts";
import { ConnectorLink, type ConnectorProcessInfo } from "./connector-link.ts";
import type { ConnectorApprovals, ConnectorIngest, ConnectorRunSpec } from "./connector-run-spec.ts";
import { sandboxedConnector } from "./connector-sandbox.ts";

export type { ConnectorProcessInfo } from "./connector-link.ts";
export type { ConnectorIngest, ConnectorIngestRequest, ConnectorRunSpec } from "./connector-run-spec.ts";

export interface ConnectorSupervisorOptions {
  /** Spawns `bun <connector entry> --connection <name>` (a bunProcessSpawner with CONNECTOR_ENTRY_SCRIPT). */
  spawner: ProcessSpawner;
  ingest: ConnectorIngest;
  approvals?: ConnectorApprovals;
  /** Read on every decision, so a reload's policy applies at once. Default: SPEC defaults. */
  policy?: () => RestartPolicy;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /** A connector up this long has its crash count reset. Default: 30000 ms. */
  stableAfterMs?: number;
  /** Hidden from every connector's sandbox (connector-sandbox.ts). */
  stateRoot?: string;
  /** Where the sandbox looks for unshare and its kin (tests); default the system's. */
  sandboxHelperPath?: string;
}

export class ConnectorSupervisor {
  private readonly links = new Map<string, ConnectorLink>();
  private readonly linkOptions: ConstructorParameters<typeof ConnectorLink>[1];

  constructor(private readonly options: ConnectorSupervisorOptions) {
    this.linkOptions = {
      spawner: options.spawner,
      ingest: options.ingest,
      ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
      policy: options.policy ?? (() => DEFAULT_RESTART_POLICY),
      clock: options.clock ?? systemClock,
      logger: options.logger ?? silentLogger(),
      stableAfterMs: options.stableAfterMs ?? 30_000,
    };
  }

  /** Starts a Connection's connector (stopping a previous one of the same name first). */
  async start(spec: ConnectorRunSpec): Promise<void> {
    await this.stop(spec.connection, { gracePeriodMs: 5000 });
    const { stateRoot, sandboxHelperPath } = this.options;
    const sandboxed = await sandboxedConnector({
      spec,
      logger: this.linkOptions.logger.child({ connection: spec.connection }),
      ...(stateRoot === undefined ? {} : { stateRoot }),
      ...(sandboxHelperPath === undefined ? {} : { helperPath: sandboxHelperPath }),
    });
    if (sandboxed === undefined) return;
    const link = new ConnectorLink(sandboxed, this.linkOptions);
    this.links.set(spec.connection, link);
    link.start();
  }

  /** Asks the connector to stop, waits up to the grace period, then kills it. */
  async stop(connection: string, options: { gracePeriodMs: number }): Promise<void> {
    const link = this.links.get(connection);
    if (!link) return;
    await link.stop(options);
    if (this.links.get(connection) === link) this.links.delete(connection);
  }

  /** Stops every connector (in reverse start order). */
  async stopAll(options: { gracePeriodMs: number }): Promise<void> {
    await Promise.all([...this.links.keys()].reverse().map((name) => this.stop(name, options)));
  }

  /** Swaps a running connector's routing (rules, entry agent) without restarting its process. */
  updateRouting(spec: Pick<ConnectorRunSpec, "connection" | "rules" | "entryAgent" | "swarmInstanceKey">): void {
    const link = this.links.get(spec.connection);
    if (link)
      link.spec = {
        ...link.spec,
        rules: spec.rules,
        entryAgent: spec.entryAgent,
        swarmInstanceKey: spec.swarmInstanceKey,
      };
  }

  list(): ConnectorProcessInfo[] {
    return [...this.links.values()].map((link) => link.info());
  }

  connections(): string[] {
    return [...this.links.keys()];
  }
}
