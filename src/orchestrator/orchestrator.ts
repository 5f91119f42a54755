/**
 * The Orchestrator: one supervisor per (agent, instanceKey), process slots, durable inboxes, pending
 * requests and reply routing, wired together. Its public surface is small: `start` (resume what the
 * inboxes hold), `submit`/`ingest` (accept an event durably, optionally await its turn), `reload` (apply a
 * new validated bundle), `processes`/`instances` (tables) and `shutdown` (ask, wait, then kill).
 */
import type { Bundle } from "../config/types.ts";
import { systemClock, type Clock } from "../shared/clock.ts";
import { newId, newTraceId, type IdGenerator } from "../shared/ids.ts";
import { silentLogger, type Logger } from "../shared/logger.ts";
import { UsageError, describe } from "../shared/errors.ts";
import { instancePaths } from "../shared/state-paths.ts";
import { BUNDLE_SNAPSHOT_ENV, agentChildArgv } from "../protocol/child-entry.ts";
import { instanceAddress, type AgentEvent } from "../protocol/agent-event.ts";
import { DurableInbox, type InboxEntry, type SyncPolicy } from "./instances/durable-inbox.ts";
import { resumeInboxes } from "./instances/resume-inboxes.ts";
import { instanceRows, storedInstances, type InstanceRow } from "./instances/stored-instances.ts";
import { loadBundle } from "../config/load-bundle.ts";
import { createRestartCoordinator, type LoadedBundle, type RestartAnswer, type RestartCoordinator, type RestartRequest } from "./reload/restart-coordinator.ts";
import { InstanceSupervisor } from "./instances/instance-supervisor.ts";
import { PendingRequests } from "./routing/pending-requests.ts";
import { ProcessPool } from "../supervision/process-pool.ts";
import { resultsArrivedEvent } from "./routing/results-arrived-event.ts";
import { handleRuntimeCall, type RouterHost } from "./routing/runtime-router.ts";
import type { OrchestratorOptions, ReloadOptions, SubmitOptions, Submitted } from "./orchestrator-options.ts";
import { swarmView, type SwarmView } from "./swarm-view.ts";
import { processTable, type ProcessInfo } from "../supervision/process-table.ts";
import { restartInstances } from "./reload/restart-instances.ts";
import { OutcomeWaiters, stoppedOutcome } from "./routing/turn-outcomes.ts";
import { OutcomeRouter } from "./routing/outcome-router.ts";
import { writeBundleSnapshot } from "./bundle-snapshot-file.ts";
import { childEnvironment } from "../supervision/child-environment.ts";
import { findResource } from "../config/resolve.ts";
import { agentRequiredEnvNames } from "../config/value-source.ts";

export type { TurnOutcome } from "../protocol/turn-outcome.ts";
export type { OrchestratorOptions, ReloadOptions, RestartHandler, SubmitOptions, Submitted } from "./orchestrator-options.ts";

export class Orchestrator {
  private bundle: Bundle;
  private snapshot: { bundle: Bundle; file: string } | undefined;
  private view: SwarmView;
  private accepting = true;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly logger: Logger;
  private readonly supervisors = new Map<string, InstanceSupervisor>();
  private readonly waiters = new OutcomeWaiters();
  private readonly pending: PendingRequests;
  private readonly outcomes: OutcomeRouter;
  private readonly pool: ProcessPool;
  private readonly router: RouterHost;
  private readonly processSources: (() => ProcessInfo[])[] = [];
  private coordinator: RestartCoordinator | undefined;

  constructor(private readonly options: OrchestratorOptions) {
    this.bundle = options.bundle;
    this.view = swarmView({ bundle: options.bundle, ...(options.swarm ? { swarm: options.swarm } : {}) });
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? newId;
    this.logger = options.logger ?? silentLogger();
    this.pending = new PendingRequests({ clock: this.clock, onTimeout: (request) => this.outcomes.requestTimedOut(request) });
    this.outcomes = new OutcomeRouter({
      waiters: this.waiters,
      pending: this.pending,
      logger: this.logger,
      requester: (address) => {
        const slash = address.indexOf("/");
        return this.supervisor(address.slice(0, slash), address.slice(slash + 1));
      },
      callee: (address) => this.supervisors.get(address),
    });
    this.pool = new ProcessPool({
      maxProcesses: () => this.view.policy.lifecycle.maxProcesses,
      gracePeriodMs: () => this.gracePeriodMs(),
      ...(options.maxConcurrentSpawns !== undefined ? { maxConcurrentSpawns: options.maxConcurrentSpawns } : {}),
    });
    this.router = {
      swarm: () => this.view,
      clock: this.clock,
      ids: this.ids,
      pending: this.pending,
      accept: (event, sync) => void this.accept(event, sync),
      spawn: (agent, instanceKey) => {
        const supervisor = this.supervisor(agent, instanceKey);
        supervisor.ensureStarted();
        return { agent, instanceKey, status: supervisor.status, ...(supervisor.pid !== undefined ? { pid: supervisor.pid } : {}) };
      },
      list: () => [...this.supervisors.values()].map((s) => ({ agent: s.agent, instanceKey: s.instanceKey, status: s.status, ...(s.live && s.pid !== undefined ? { pid: s.pid } : {}) })),
      restart: async ({ reason, requester }) => {
        const afterTurn = this.afterCurrentTurn(requester.address);
        const handler = this.options.restartHandler;
        if (!handler) return this.restart({ reason, afterTurn });
        return handler({ reason, requester: { agent: requester.agent, instanceKey: requester.instanceKey }, afterTurn, orchestrator: this });
      },
    };
  }

  get swarm(): SwarmView {
    return this.view;
  }

  get currentBundle(): Bundle {
    return this.bundle;
  }

  get stateRoot(): string {
    return this.options.stateRoot;
  }

  /** Resumes every accepted, unanswered event found in the inboxes under the state root. */
  start(): { resumed: number } {
    return resumeInboxes({
      stateRoot: this.options.stateRoot,
      view: this.view,
      clock: this.clock,
      logger: this.logger,
      pending: this.pending,
      supervisor: (agent, instanceKey) => this.supervisor(agent, instanceKey),
    });
  }

  /**
   * Restart requests (self-restart tool, `POST /v1/restart`, SIGHUP): validated against the bundle on
   * disk before answering, coalesced, applied with `reload` after `afterTurn` settles.
   */
  restart(request: RestartRequest): Promise<RestartAnswer> {
    this.coordinator ??= createRestartCoordinator({
      loadBundle: () => (this.options.loadBundle ?? defaultLoadBundle)(this.bundle.dir),
      reload: async (plan) => void (await this.reload(plan)),
      clock: this.clock,
      logger: this.logger,
    });
    return this.coordinator.request(request);
  }

  /** Adds rows to the process table (connector processes). */
  addProcessSource(source: () => ProcessInfo[]): void {
    this.processSources.push(source);
  }

  /** Durably accepts one event; returns once it is on disk. `outcome` settles when its turn ends. */
  submit(options: SubmitOptions): Submitted {
    const agent = options.agent ?? this.view.entryAgent;
    const instanceKey = options.instanceKey ?? this.view.instanceKey;
    if (!this.view.agents.has(agent)) throw new UsageError("AGENT_NOT_FOUND", `agent ${JSON.stringify(agent)} is not in swarm ${this.view.name}; members: ${[...this.view.agents.keys()].join(", ")}`);
    const now = this.clock.now();
    const event: AgentEvent = {
      id: this.ids("evt"),
      type: options.type ?? "user.input",
      input: options.input,
      agent,
      instanceKey,
      source: options.source ?? { kind: "api", name: "api" },
      traceId: options.traceId ?? newTraceId(),
      callChain: [],
      metadata: options.metadata ?? {},
      createdAt: new Date(now).toISOString(),
    };
    const outcome = this.waiters.outcome(event.id);
    try {
      this.accept(event);
    } catch (error) {
      this.waiters.forget(event.id);
      throw error;
    }
    return { eventId: event.id, agent, instanceKey, outcome };
  }

  /** Connectors submit their routed events here (same durability as `submit`). */
  ingest(options: SubmitOptions & { connection: string }): Submitted {
    const { connection, ...rest } = options;
    return this.submit({ ...rest, type: options.type ?? "connector.event", source: options.source ?? { kind: "connector", name: connection } });
  }

  processes(): ProcessInfo[] {
    return [...processTable([...this.supervisors.values()], this.clock.now()), ...this.processSources.flatMap((source) => source())];
  }

  /** Known instances (live or with files under the state root), with status and queue length. */
  instances(): InstanceRow[] {
    return instanceRows({ supervisors: [...this.supervisors.values()], stored: storedInstances({ stateRoot: this.options.stateRoot, swarmInstanceKey: this.view.instanceKey }) });
  }

  /** Where an instance keeps its files (its runtime events, for the HTTP API). */
  instancePaths(agent: string, instanceKey: string): ReturnType<typeof instancePaths> {
    return instancePaths({ stateRoot: this.options.stateRoot, swarmInstanceKey: this.view.instanceKey, agent, instanceKey });
  }

  /**
   * Applies a new validated bundle: the Swarm policy at once, without restarting children; the named
   * agents' live instances (all when `agents` is absent, and any whose agent left the swarm) and the named
   * single `instances` are drained and started again on the new files, keeping their conversations unless
   * `fresh`, `freshAgents` or `freshInstances` says otherwise for them.
   */
  async reload(options: ReloadOptions): Promise<{ restarted: string[] }> {
    const view = swarmView({ bundle: options.bundle, swarm: this.view.name });
    this.bundle = options.bundle;
    this.view = view;
    const restarted = await restartInstances({
      supervisors: [...this.supervisors.values()],
      view,
      agents: options.agents,
      ...(options.instances ? { instances: options.instances } : {}),
      fresh: options.fresh === true,
      ...(options.freshAgents ? { freshAgents: options.freshAgents } : {}),
      ...(options.freshInstances ? { freshInstances: options.freshInstances } : {}),
      gracePeriodMs: this.gracePeriodMs(),
      startAgain: () => this.accepting,
      instancePaths: (instance) => this.instancePaths(instance.agent, instance.instanceKey),
      retire: (s) => this.supervisors.delete(s.address),
    });
    this.logger.info({ restarted, reasons: options.reasons ?? [] }, "reloaded");
    return { restarted };
  }

  /** Stops accepting, asks every child to finish and exit, SIGKILLs after the grace period. */
  async shutdown(options: { reason: string; gracePeriodMs?: number }): Promise<void> {
    this.accepting = false;
    this.coordinator?.close();
    const gracePeriodMs = options.gracePeriodMs ?? this.gracePeriodMs();
    for (const supervisor of this.supervisors.values()) supervisor.close();
    await Promise.all([...this.supervisors.values()].map((s) => s.stop({ reason: options.reason, gracePeriodMs })));
    for (const supervisor of this.supervisors.values()) supervisor.inbox.close();
    this.pending.clear();
    this.waiters.settleAll(stoppedOutcome);
    this.logger.info({ reason: options.reason }, "orchestrator stopped");
  }

  /** `sync`: how durable the event must be before this returns (durable-inbox.ts; outside events: fdatasync). */
  private accept(event: AgentEvent, sync: SyncPolicy = "fdatasync"): InboxEntry {
    if (!this.accepting) throw new UsageError("ORCHESTRATOR_STOPPING", "the orchestrator is shutting down and accepts no new events");
    const supervisor = this.supervisor(event.agent, event.instanceKey);
    const entry = supervisor.inbox.append({ event, now: this.clock.now() });
    // Delivery may overlap the sync; the event is acknowledged (returned) only once it is as durable as its
    // source needs (durable-inbox.ts: outside events fdatasynced, agent requests written).
    supervisor.enqueue(entry);
    if (sync === "fdatasync") supervisor.inbox.sync();
    return entry;
  }

  private gracePeriodMs(): number {
    return this.view.policy.shutdown.gracePeriodSeconds * 1000;
  }

  /** Only what this agent's own resources need, plus the basics (see child-environment.ts). */
  private agentEnvironment(agent: string): Record<string, string> {
    const env = this.options.env ?? process.env;
    try {
      const resource = findResource(this.bundle, "Agent", agent);
      return childEnvironment({ env, names: resource ? agentRequiredEnvNames(this.bundle, resource) : [] });
    } catch (error) {
      // Only a bundle that skipped validation gets here; the child then reports what it lacks itself.
      this.logger.warn({ agent, err: error }, "could not work out the env vars this agent needs; passing the basics only");
      return childEnvironment({ env });
    }
  }

  /** The snapshot file of the bundle now in force (written once per bundle). */
  private snapshotFile(): string {
    if (this.snapshot?.bundle !== this.bundle) this.snapshot = { bundle: this.bundle, file: writeBundleSnapshot({ stateRoot: this.options.stateRoot, bundle: this.bundle }) };
    return this.snapshot.file;
  }

  private supervisor(agent: string, instanceKey: string): InstanceSupervisor {
    const address = instanceAddress(agent, instanceKey);
    const existing = this.supervisors.get(address);
    if (existing) return existing;
    const supervisor = new InstanceSupervisor({
      agent,
      instanceKey,
      inbox: new DurableInbox(this.instancePaths(agent, instanceKey).inbox),
      spawner: this.options.spawner,
      spawnRequest: () => ({
        agent,
        instanceKey,
        argv: agentChildArgv({ bundle: this.bundle.dir, swarm: this.view.name, agent, instanceKey, stateRoot: this.options.stateRoot }),
        env: { ...this.agentEnvironment(agent), ...this.options.childEnv, [BUNDLE_SNAPSHOT_ENV]: this.snapshotFile() },
      }),
      clock: this.clock,
      policy: () => this.view.policy,
      logger: this.logger,
      ...(this.options.readyTimeoutMs !== undefined ? { readyTimeoutMs: this.options.readyTimeoutMs } : {}),
      hooks: {
        requestStart: (s) => this.pool.request(s),
        released: (s) => this.pool.released(s),
        started: (s) => this.pool.started(s),
        idled: (s) => this.pool.idled(s),
        turnResult: (s, entry, result) => this.outcomes.turnEnded(s, entry, result),
        poisoned: (s, entry, cause) => this.outcomes.givenUp(s, entry, cause),
        runtimeCall: (s, call) => {
          const requester = { agent: s.agent, instanceKey: s.instanceKey, address: s.address, currentEvent: () => s.inFlight?.event, runtimeResult: s.runtimeResult.bind(s) };
          void handleRuntimeCall({ host: this.router, requester, call }).catch((error: unknown) => this.logger.error({ error: describe(error) }, "runtime call failed"));
        },
        // Queued or in-flight work shows the results anyway; otherwise a turn of its own.
        resultsWaiting: (s, { count }) => {
          if (this.accepting && !s.hasWork()) this.accept(resultsArrivedEvent({ id: this.ids("evt"), agent: s.agent, instanceKey: s.instanceKey, count, now: this.clock.now() }), "write");
        },
      },
    });
    this.supervisors.set(address, supervisor);
    return supervisor;
  }

  /** Resolves when the instance's current turn has ended (at once when it has none). */
  private afterCurrentTurn(address: string): Promise<void> {
    const supervisor = this.supervisors.get(address);
    if (!supervisor?.inFlight) return Promise.resolve();
    return this.waiters.ended(supervisor.inFlight.event.id);
  }
}

const defaultLoadBundle = (dir: string): Promise<LoadedBundle> => loadBundle(dir);
