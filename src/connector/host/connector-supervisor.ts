/**
 * Supervises connector processes, one Bun child per Connection, through the orchestrator's
 * ProcessSpawner and restart policy: start it with its resolved config and secrets, route each event
 * it emits through the Connection's ingress rules into the orchestrator (`ingest`), answer with an
 * ack once the event is durably accepted and, when asked, with the turn's reply. A connector that
 * exits or crashes is restarted (at once, then with backoff); it never takes the orchestrator down.
 */
import type { IngressRule } from "../../config/types.ts";
import type { Clock, TimerHandle } from "../../shared/clock.ts";
import { systemClock } from "../../shared/clock.ts";
import type { Logger } from "../../shared/logger.ts";
import { silentLogger } from "../../shared/logger.ts";
import { describe } from "../../shared/errors.ts";
import type { JsonObject } from "../../shared/json.ts";
import { failedOutcome, type TurnOutcome } from "../../protocol/turn-outcome.ts";
import { envelope, ORCHESTRATOR, type ChildMessage, type ChildToParent } from "../../protocol/ipc-messages.ts";
import type { ChildExit, ChildProcessHandle, ProcessSpawner, SpawnRequest } from "../../supervision/process-spawner.ts";
import { decideAfterCrash, DEFAULT_RESTART_POLICY, type RestartPolicy } from "../../supervision/restart-policy.ts";
import { eventInputText, parseConnectorEvent } from "../connector-event.ts";
import { routeEvent } from "./ingress-router.ts";

/** Everything needed to run one Connection's connector. */
export interface ConnectorRunSpec {
  connection: string;
  connector: string;
  /** Absolute path of the connector's entry module. */
  entry: string;
  config: JsonObject;
  secrets: Record<string, string>;
  rules: IngressRule[];
  entryAgent: string;
  swarmInstanceKey: string;
  /** Give the child the orchestrator's stdin (the built-in `cli` connector). */
  stdin: "inherit" | "ignore";
}

export interface ConnectorIngestRequest {
  connection: string;
  agent: string;
  instanceKey: string;
  input: string;
  /** `connector.<event name>` */
  type: string;
  metadata: JsonObject;
  wantsReply: boolean;
}


/** Hands an event to the orchestrator; resolves once it is durably accepted (rejects with a coded error if refused). */
export type ConnectorIngest = (request: ConnectorIngestRequest) => Promise<{ eventId: string; reply?: Promise<TurnOutcome> }>;

export type ConnectorStatus = "spawning" | "running" | "crashLoopBackOff" | "draining" | "terminated";

export interface ConnectorProcessInfo {
  kind: "connector";
  connection: string;
  connector: string;
  pid: number | undefined;
  status: ConnectorStatus;
  restarts: number;
  consecutiveCrashes: number;
  startedAt: string | undefined;
}

export interface ConnectorSupervisorOptions {
  /** Spawns `bun connector-entry.ts --connection <name>` (a bunProcessSpawner with the connector entry script). */
  spawner: ProcessSpawner;
  ingest: ConnectorIngest;
  /** Read on every decision, so a reload's policy applies at once. Default: SPEC defaults. */
  policy?: () => RestartPolicy;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /** A connector up this long has its crash count reset. Default: 30000 ms. */
  stableAfterMs?: number;
}

interface Running {
  spec: ConnectorRunSpec;
  child: ChildProcessHandle | undefined;
  status: ConnectorStatus;
  restarts: number;
  consecutiveCrashes: number;
  startedAt: number | undefined;
  timer: TimerHandle | undefined;
  stopping: Promise<void> | undefined;
}

export class ConnectorSupervisor {
  private readonly running = new Map<string, Running>();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly stableAfterMs: number;

  constructor(private readonly options: ConnectorSupervisorOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger();
    this.stableAfterMs = options.stableAfterMs ?? 30_000;
  }

  /** Starts a Connection's connector (stopping a previous one of the same name first). */
  async start(spec: ConnectorRunSpec): Promise<void> {
    await this.stop(spec.connection, { gracePeriodMs: 5000 });
    const state: Running = { spec, child: undefined, status: "spawning", restarts: 0, consecutiveCrashes: 0, startedAt: undefined, timer: undefined, stopping: undefined };
    this.running.set(spec.connection, state);
    this.spawn(state);
  }

  /** Asks the connector to stop, waits up to the grace period, then kills it. */
  stop(connection: string, options: { gracePeriodMs: number }): Promise<void> {
    const state = this.running.get(connection);
    if (!state) return Promise.resolve();
    if (state.stopping) return state.stopping;
    this.clearTimer(state);
    const child = state.child;
    state.status = "draining";
    state.stopping = new Promise<void>((resolve) => {
      if (!child) return resolve();
      const kill = this.clock.setTimeout(() => child.kill("SIGKILL"), options.gracePeriodMs);
      child.onExit(() => {
        this.clock.clearTimeout(kill);
        resolve();
      });
      if (!child.send(envelope("shutdown", ORCHESTRATOR, this.address(state), { gracePeriodMs: options.gracePeriodMs, reason: "stop" }))) child.kill("SIGTERM");
    }).then(() => {
      state.status = "terminated";
      state.child = undefined;
      if (this.running.get(connection) === state) this.running.delete(connection);
    });
    return state.stopping;
  }

  /** Stops every connector (in reverse start order). */
  async stopAll(options: { gracePeriodMs: number }): Promise<void> {
    const names = [...this.running.keys()].reverse();
    await Promise.all(names.map((name) => this.stop(name, options)));
  }

  /** Swaps a running connector's routing (rules, entry agent) without restarting its process. */
  updateRouting(spec: Pick<ConnectorRunSpec, "connection" | "rules" | "entryAgent" | "swarmInstanceKey">): void {
    const state = this.running.get(spec.connection);
    if (state) state.spec = { ...state.spec, rules: spec.rules, entryAgent: spec.entryAgent, swarmInstanceKey: spec.swarmInstanceKey };
  }

  list(): ConnectorProcessInfo[] {
    return [...this.running.values()].map((state) => ({
      kind: "connector",
      connection: state.spec.connection,
      connector: state.spec.connector,
      pid: state.child?.pid,
      status: state.status,
      restarts: state.restarts,
      consecutiveCrashes: state.consecutiveCrashes,
      startedAt: state.startedAt === undefined ? undefined : new Date(state.startedAt).toISOString(),
    }));
  }

  connections(): string[] {
    return [...this.running.keys()];
  }

  private address(state: Running): string {
    return `connector:${state.spec.connection}`;
  }

  private clearTimer(state: Running): void {
    if (state.timer) this.clock.clearTimeout(state.timer);
    state.timer = undefined;
  }

  private spawn(state: Running): void {
    // A terminal connector (cli) reads the orchestrator's stdin and writes its replies to stdout (fd 1),
    // wherever the logs go.
    const request: SpawnRequest = {
      agent: `connector:${state.spec.connection}`,
      instanceKey: state.spec.connection,
      argv: ["--connection", state.spec.connection],
      stdin: state.spec.stdin,
      ...(state.spec.stdin === "inherit" ? { stdout: 1 } : {}),
    };
    let child: ChildProcessHandle;
    try {
      child = this.options.spawner.spawn(request);
    } catch (error) {
      this.logger.error({ connection: state.spec.connection, error: describe(error) }, "connector spawn failed");
      this.afterExit(state, { code: null, signal: null });
      return;
    }
    state.child = child;
    state.status = "spawning";
    state.startedAt = this.clock.now();
    child.onMessage((message) => this.onMessage(state, child, message));
    child.onExit((exit) => {
      if (state.child !== child) return;
      state.child = undefined;
      if (state.stopping) return;
      this.afterExit(state, exit);
    });
    const { connector, connection, entry, config, secrets } = state.spec;
    child.send(envelope("connector_start", ORCHESTRATOR, this.address(state), { connector, connection, entry, config, secrets }));
  }

  private afterExit(state: Running, exit: ChildExit): void {
    this.clearTimer(state);
    state.consecutiveCrashes++;
    const policy = this.options.policy?.() ?? DEFAULT_RESTART_POLICY;
    const decision = decideAfterCrash({ consecutiveCrashes: state.consecutiveCrashes, policy });
    this.logger.warn({ connection: state.spec.connection, exit, consecutiveCrashes: state.consecutiveCrashes, decision }, "connector exited; restarting");
    state.restarts++;
    if (decision.action === "restart") {
      this.spawn(state);
      return;
    }
    state.status = "crashLoopBackOff";
    state.timer = this.clock.setTimeout(() => {
      state.timer = undefined;
      if (!state.stopping) this.spawn(state);
    }, decision.delayMs);
  }

  private onMessage(state: Running, child: ChildProcessHandle, message: ChildMessage): void {
    if (message.type === "connector_ready") {
      state.status = "running";
      this.clearTimer(state);
      state.timer = this.clock.setTimeout(() => {
        state.timer = undefined;
        state.consecutiveCrashes = 0;
      }, this.stableAfterMs);
      this.logger.info({ connection: state.spec.connection, pid: child.pid }, "connector ready");
    } else if (message.type === "connector_event") {
      void this.onEvent(state, child, message.payload);
    } else if (message.type === "fatal") {
      this.logger.error({ connection: state.spec.connection, code: message.payload.code, message: message.payload.message }, "connector failed to start");
    }
  }

  private async onEvent(state: Running, child: ChildProcessHandle, payload: ChildToParent["connector_event"]): Promise<void> {
    const to = this.address(state);
    const refuse = (code: string, message: string) =>
      child.send(envelope("connector_ack", ORCHESTRATOR, to, { requestId: payload.requestId, accepted: false, error: { code, message } }));
    const parsed = parseConnectorEvent(payload.event);
    if ("error" in parsed) return void refuse("E_CONNECTOR_EVENT_INVALID", parsed.error);
    const event = parsed.event;
    const { spec } = state;
    const route = routeEvent({ event, rules: spec.rules, entryAgent: spec.entryAgent, swarmInstanceKey: spec.swarmInstanceKey });
    if (!route) return void refuse("E_CONNECTOR_NO_ROUTE", `no ingress rule of Connection/${spec.connection} matches event ${JSON.stringify(event.name)}`);
    let accepted: Awaited<ReturnType<ConnectorIngest>>;
    try {
      accepted = await this.options.ingest({
        connection: spec.connection,
        agent: route.agent,
        instanceKey: route.instanceKey,
        input: eventInputText(event),
        type: `connector.${event.name}`,
        metadata: { connector: spec.connector, connection: spec.connection, event: event.name, properties: event.properties, message: event.message },
        wantsReply: payload.wantsReply,
      });
    } catch (error) {
      const described = describe(error);
      return void refuse(described.code ?? "E_CONNECTOR_INGEST_FAILED", described.message);
    }
    child.send(envelope("connector_ack", ORCHESTRATOR, to, { requestId: payload.requestId, accepted: true, eventId: accepted.eventId }));
    if (!payload.wantsReply) return;
    let reply: TurnOutcome;
    try {
      reply = accepted.reply
        ? await accepted.reply
        : failedOutcome({ agent: "", instanceKey: "", eventId: accepted.eventId, error: { code: "E_CONNECTOR_NO_REPLY", message: "the orchestrator gave no reply for this event" } });
    } catch (error) {
      const described = describe(error);
      reply = failedOutcome({ agent: "", instanceKey: "", eventId: accepted.eventId, error: { code: described.code ?? "E_CONNECTOR_REPLY_FAILED", message: described.message } });
    }
    child.send(envelope("connector_reply", ORCHESTRATOR, to, { requestId: payload.requestId, ...reply }));
  }
}
