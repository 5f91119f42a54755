/**
 * One Connection's connector child under the one Supervisor (src/supervision), with the connector's child spec:
 * started at once with its resolved config and secrets sent over IPC (never in argv), ready when it says
 * `connector_ready`, restarted after a crash (at once, then with backoff) and — unlike an agent, which waits for
 * work — at once after it left on its own; its crash count resets once it stayed up `stableAfterMs`. Its emitted
 * events go through connector-events.ts.
 */
import type { Clock } from "../../shared/clock.ts";
import type { Logger } from "../../shared/logger.ts";
import { connectorChildArgv } from "../../protocol/child-entry.ts";
import type { ChildMessage } from "../../protocol/ipc-messages.ts";
import type { ChildProcess } from "../../supervision/child-process.ts";
import type { ProcessSpawner, SpawnRequest } from "../../supervision/process-spawner.ts";
import type { RestartPolicy } from "../../supervision/restart-policy.ts";
import type { SupervisedExit, SupervisorStatus } from "../../supervision/child-spec.ts";
import { Supervisor } from "../../supervision/supervisor.ts";
import { handleConnectorEvent } from "./connector-events.ts";
import type { ConnectorApprovals, ConnectorIngest, ConnectorRunSpec } from "./connector-run-spec.ts";
import { handleConnectorApproval } from "./connector-approvals.ts";

export interface ConnectorProcessInfo {
  kind: "connector";
  connection: string;
  connector: string;
  pid: number | undefined;
  status: SupervisorStatus;
  restarts: number;
  consecutiveCrashes: number;
  /** ISO time the current child became ready. */
  startedAt: string | undefined;
}

export interface ConnectorLinkOptions {
  spawner: ProcessSpawner;
  ingest: ConnectorIngest;
  /** Held tool calls the connector may read and decide (absent: it is told they are unavailable). */
  approvals?: ConnectorApprovals;
  policy: () => RestartPolicy;
  clock: Clock;
  logger: Logger;
  stableAfterMs: number;
}

export class ConnectorLink {
  private readonly supervisor: Supervisor;
  private readonly logger: Logger;
  private stopping: Promise<void> | undefined;

  constructor(
    public spec: ConnectorRunSpec,
    private readonly options: ConnectorLinkOptions,
  ) {
    const address = `connector:${spec.connection}`;
    this.logger = options.logger.child({ connection: spec.connection });
    this.supervisor = new Supervisor({
      spec: {
        address,
        spawnRequest: () => this.spawnRequest(address),
        readyMessage: "connector_ready",
        stableAfterMs: options.stableAfterMs,
      },
      spawner: options.spawner,
      clock: options.clock,
      logger: this.logger,
      policy: options.policy,
      hooks: {
        wanted: () => this.stopping === undefined,
        spawned: (child) => this.sendStart(child),
        ready: (child) => this.logger.info({ pid: child.pid }, "connector ready"),
        message: (child, message) => this.onMessage(child, message),
        exited: (ended) => this.onExited(ended),
      },
    });
  }

  start(): void {
    this.supervisor.ensureRunning();
  }

  /** Asks the connector to stop, waits up to the grace period, then kills it; it is never started again. */
  stop(options: { gracePeriodMs: number }): Promise<void> {
    this.stopping ??= (() => {
      this.supervisor.close();
      return this.supervisor.stop({ reason: "stop", gracePeriodMs: options.gracePeriodMs });
    })();
    return this.stopping;
  }

  info(): ConnectorProcessInfo {
    const { supervisor } = this;
    return {
      kind: "connector",
      connection: this.spec.connection,
      connector: this.spec.connector,
      pid: supervisor.pid,
      status: supervisor.status,
      restarts: supervisor.restarts,
      consecutiveCrashes: supervisor.consecutiveCrashes,
      startedAt: supervisor.startedAt === undefined ? undefined : new Date(supervisor.startedAt).toISOString(),
    };
  }

  /** A terminal connector (cli) reads the orchestrator's stdin and writes its replies to stdout (fd 1), wherever the logs go. */
  private spawnRequest(address: string): SpawnRequest {
    const { connection, stdin, launcher } = this.spec;
    return {
      address,
      argv: connectorChildArgv(connection),
      stdin,
      ...(stdin === "inherit" ? { stdout: 1 } : {}),
      ...(launcher === undefined ? {} : { launcher }),
    };
  }

  private sendStart(child: ChildProcess): void {
    const { connector, connection, entry, config, secrets } = this.spec;
    child.send("connector_start", { connector, connection, entry, config, secrets });
  }

  private onMessage(child: ChildProcess, message: ChildMessage): void {
    if (message.type === "connector_event") {
      void handleConnectorEvent({
        spec: this.spec,
        payload: message.payload,
        ingest: this.options.ingest,
        ...(this.options.approvals?.signal ? { signal: this.options.approvals.signal } : {}),
        send: (type, payload) => void child.send(type, payload),
      });
    } else if (message.type === "connector_approval") {
      void handleConnectorApproval({
        payload: message.payload,
        approvals: this.options.approvals,
        send: (payload) => void child.send("connector_approval_result", payload),
      });
    } else if (message.type === "fatal") {
      this.logger.error({ code: message.payload.code, message: message.payload.message }, "connector failed to start");
    }
  }

  /** A connector has no work to wait for: one that left on its own starts again at once. */
  private onExited(ended: SupervisedExit): void {
    if (ended.how === "left" && this.stopping === undefined) this.supervisor.ensureRunning();
  }
}
