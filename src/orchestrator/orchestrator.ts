/**
 * The Orchestrator: the agent instances of one Swarm — one Instance (durable inbox + supervised child) per
 * (agent, instanceKey), process slots, pending requests and reply routing, wired together once here. Its public
 * surface is small: `start` (resume what the inboxes hold), `submit`/`ingest` (accept an event durably,
 * optionally await its turn), `reload` (apply a new validated bundle), `processes`/`instances` (tables) and
 * `shutdown` (ask, wait, then kill). Connectors, the HTTP API and restarts are composed around it by the daemon.
 */
import type { Bundle } from "../config/types.ts";
import { systemClock, type Clock } from "../shared/clock.ts";
import { UsageError, describe } from "../shared/errors.ts";
import { newId, newTraceId, type IdGenerator } from "../shared/ids.ts";
import { silentLogger, type Logger } from "../shared/logger.ts";
import { migrateSafeNames } from "../shared/migrate-safe-names.ts";
import { instancePaths, type InstancePaths } from "../shared/state-paths.ts";
import { instanceAddress, type AgentEvent } from "../protocol/agent-event.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import { ProcessPool } from "../supervision/process-pool.ts";
import { processTable, type ProcessInfo } from "../supervision/process-table.ts";
import { AgentSpawnRequests } from "./agent-spawn-requests.ts";
import { DurableInbox, type InboxEntry, type SyncPolicy } from "./instances/durable-inbox.ts";
import { Instance } from "./instances/instance.ts";
import type { InstanceHooks } from "./instances/instance-options.ts";
import { resumeInboxes } from "./instances/resume-inboxes.ts";
import { instanceRows, storedInstances, type InstanceRow } from "./instances/stored-instances.ts";
import type { ReloadPlan } from "./reload/reload-plan.ts";
import { restartInstances } from "./reload/restart-instances.ts";
import { OutcomeRouter } from "./routing/outcome-router.ts";
import { PendingRequests } from "./routing/pending-requests.ts";
import { ProgressWatchers } from "./routing/progress-watchers.ts";
import { resultsArrivedEvent } from "./routing/results-arrived-event.ts";
import { handleRuntimeCall, type RouterHost } from "./routing/runtime-router.ts";
import { OutcomeWaiters, stoppedOutcome } from "./routing/turn-outcomes.ts";
import type { OrchestratorOptions, SubmitOptions, Submitted } from "./orchestrator-options.ts";
import { swarmView, type SwarmView } from "./swarm-view.ts";

export type { TurnOutcome };
export type { OrchestratorOptions, RestartRequester, SubmitOptions, Submitted } from "./orchestrator-options.ts";

export class Orchestrator {
  private bundle: Bundle;
  private view: SwarmView;
  private accepting = true;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly logger: Logger;
  private readonly instancesByAddress = new Map<string, Instance>();
  private readonly waiters = new OutcomeWaiters();
  private readonly progress = new ProgressWatchers();
  private readonly pending: PendingRequests;
  private readonly outcomes: OutcomeRouter;
  private readonly pool: ProcessPool;
  private readonly spawnRequests: AgentSpawnRequests;
  private readonly router: RouterHost;
  private readonly hooks: InstanceHooks;

  constructor(private readonly options: OrchestratorOptions) {
    this.bundle = options.bundle;
    this.view = swarmView({ bundle: options.bundle, ...(options.swarm ? { swarm: options.swarm } : {}) });
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? newId;
    this.logger = options.logger ?? silentLogger();
    this.spawnRequests = new AgentSpawnRequests({ stateRoot: options.stateRoot, env: options.env ?? process.env, childEnv: options.childEnv ?? {}, logger: this.logger });
    this.pending = new PendingRequests({ clock: this.clock, onTimeout: (request) => this.outcomes.requestTimedOut(request) });
    this.outcomes = new OutcomeRouter({
      waiters: this.waiters,
      pending: this.pending,
      logger: this.logger,
      requester: (address) => {
        const slash = address.indexOf("/");
        return this.instance(address.slice(0, slash), address.slice(slash + 1));
      },
      callee: (address) => this.instancesByAddress.get(address),
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
        const instance = this.instance(agent, instanceKey);
        instance.ensureStarted();
        return { agent, instanceKey, status: instance.status, ...(instance.pid !== undefined ? { pid: instance.pid } : {}) };
      },
      list: () => [...this.instancesByAddress.values()].map((s) => ({ agent: s.agent, instanceKey: s.instanceKey, status: s.status, ...(s.live && s.pid !== undefined ? { pid: s.pid } : {}) })),
      restart: ({ reason, requester }) => {
        const restarts = this.options.restarts;
        if (!restarts) return Promise.resolve({ accepted: false, issues: [{ code: "E_RESTART_UNAVAILABLE", path: "", message: "this orchestrator runs without a restart coordinator" }] });
        return restarts.request({ reason, afterTurn: this.afterCurrentTurn(requester) });
      },
    };
    this.hooks = {
      turnResult: (instance, entry, result) => this.outcomes.turnEnded(instance, entry, result),
      poisoned: (instance, entry, cause) => this.outcomes.givenUp(instance, entry, cause),
      runtimeCall: (instance, call) => void handleRuntimeCall({ host: this.router, requester: instance, call }).catch((error: unknown) => this.logger.error({ error: describe(error) }, "runtime call failed")),
      // Queued or in-flight work shows the results anyway; otherwise a turn of its own.
      resultsWaiting: (instance, { count }) => {
        if (this.accepting && !instance.hasWork()) this.accept(resultsArrivedEvent({ id: this.ids("evt"), agent: instance.agent, instanceKey: instance.instanceKey, count, now: this.clock.now() }), "write");
      },
      turnProgress: (_instance, progress) => this.progress.publish(progress),
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

  /**
   * Resumes every accepted, unanswered event found in the inboxes under the state root, after moving instance
   * directories an older goondan named to their current names (migrate-safe-names.ts).
   */
  start(): { resumed: number } {
    const migration = migrateSafeNames({ stateRoot: this.options.stateRoot });
    if (migration.moved.length > 0) this.logger.info({ moved: migration.moved }, "renamed instance directories to their current names");
    if (migration.skipped.length > 0) this.logger.warn({ skipped: migration.skipped }, "instance directories with ambiguous old names left where they are");
    return resumeInboxes({
      stateRoot: this.options.stateRoot,
      view: this.view,
      clock: this.clock,
      logger: this.logger,
      pending: this.pending,
      instance: (agent, instanceKey) => this.instance(agent, instanceKey),
    });
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
    const stopWatching = options.onProgress ? this.progress.watch(event.traceId, options.onProgress) : undefined;
    if (stopWatching) void outcome.then(stopWatching, stopWatching);
    try {
      this.accept(event);
    } catch (error) {
      this.waiters.forget(event.id);
      stopWatching?.();
      throw error;
    }
    return { eventId: event.id, agent, instanceKey, outcome };
  }

  /** Connectors submit their routed events here (same durability as `submit`). */
  ingest(options: SubmitOptions & { connection: string }): Submitted {
    const { connection, ...rest } = options;
    return this.submit({ ...rest, type: options.type ?? "connector.event", source: options.source ?? { kind: "connector", name: connection } });
  }

  /** The agent rows of the process table. */
  processes(): ProcessInfo[] {
    return processTable([...this.instancesByAddress.values()]);
  }

  /** Known instances (live or with files under the state root), with status and queue length. */
  instances(): InstanceRow[] {
    return instanceRows({ supervisors: [...this.instancesByAddress.values()], stored: storedInstances({ stateRoot: this.options.stateRoot, swarmInstanceKey: this.view.instanceKey }) });
  }

  /** Where an instance keeps its files (its runtime events, for the HTTP API). */
  instancePaths(agent: string, instanceKey: string): InstancePaths {
    return instancePaths({ stateRoot: this.options.stateRoot, swarmInstanceKey: this.view.instanceKey, agent, instanceKey });
  }

  /**
   * Applies a new validated bundle: the Swarm policy at once, without restarting children; the named
   * agents' live instances (all when `agents` is absent, and any whose agent left the swarm) and the named
   * single `instances` are drained and started again on the new files, keeping their conversations unless
   * `fresh`, `freshAgents` or `freshInstances` says otherwise for them.
   */
  async reload(plan: ReloadPlan): Promise<{ restarted: string[] }> {
    const view = swarmView({ bundle: plan.bundle, swarm: this.view.name });
    this.bundle = plan.bundle;
    this.view = view;
    const restarted = await restartInstances({
      supervisors: [...this.instancesByAddress.values()],
      view,
      plan,
      gracePeriodMs: this.gracePeriodMs(),
      startAgain: () => this.accepting,
      instancePaths: (instance) => this.instancePaths(instance.agent, instance.instanceKey),
      retire: (instance) => this.instancesByAddress.delete(instance.address),
    });
    this.logger.info({ restarted, reasons: plan.reasons ?? [] }, "reloaded");
    return { restarted };
  }

  /** Stops accepting, asks every child to finish and exit, SIGKILLs after the grace period. */
  async shutdown(options: { reason: string; gracePeriodMs?: number }): Promise<void> {
    this.accepting = false;
    const gracePeriodMs = options.gracePeriodMs ?? this.gracePeriodMs();
    const instances = [...this.instancesByAddress.values()];
    for (const instance of instances) instance.close();
    await Promise.all(
      instances.map(async (instance) => {
        await instance.stop({ reason: options.reason, gracePeriodMs });
        this.abandonQueuedRequests(instance);
      }),
    );
    for (const instance of instances) instance.inbox.close();
    this.pending.clear();
    this.waiters.settleAll(stoppedOutcome);
    this.logger.info({ reason: options.reason }, "orchestrator stopped");
  }

  /**
   * A stopped instance's queued requests will only run after the restart: a requester whose turn waits on one is
   * cut short rather than left waiting out the grace period, so a drain ends as soon as the running turns end.
   */
  private abandonQueuedRequests(callee: Instance): void {
    for (const entry of callee.queue) {
      const replyTo = entry.event.replyTo;
      const request = replyTo && this.pending.peek({ requester: replyTo.target, correlationId: replyTo.correlationId });
      if (request?.blocking) this.instancesByAddress.get(request.requester)?.cutTurnShort(`its request to ${callee.address} runs only after the restart`);
    }
  }

  /** `sync`: how durable the event must be before this returns (durable-inbox.ts; outside events: fdatasync). */
  private accept(event: AgentEvent, sync: SyncPolicy = "fdatasync"): InboxEntry {
    if (!this.accepting) throw new UsageError("ORCHESTRATOR_STOPPING", "the orchestrator is shutting down and accepts no new events");
    const instance = this.instance(event.agent, event.instanceKey);
    const entry = instance.inbox.append({ event, now: this.clock.now() });
    // Delivery may overlap the sync; the event is acknowledged (returned) only once it is as durable as its
    // source needs (durable-inbox.ts: outside events fdatasynced, agent requests written).
    instance.enqueue(entry);
    if (sync === "fdatasync") instance.inbox.sync();
    return entry;
  }

  private gracePeriodMs(): number {
    return this.view.policy.shutdown.gracePeriodSeconds * 1000;
  }

  private instance(agent: string, instanceKey: string): Instance {
    const address = instanceAddress(agent, instanceKey);
    const existing = this.instancesByAddress.get(address);
    if (existing) return existing;
    const instance = new Instance({
      agent,
      instanceKey,
      inbox: new DurableInbox(this.instancePaths(agent, instanceKey).inbox),
      spawner: this.options.spawner,
      spawnRequest: () => this.spawnRequests.request({ bundle: this.bundle, swarm: this.view.name, agent, instanceKey }),
      clock: this.clock,
      policy: () => this.view.policy,
      pool: this.pool,
      hooks: this.hooks,
      logger: this.logger,
      ...(this.options.readyTimeoutMs !== undefined ? { readyTimeoutMs: this.options.readyTimeoutMs } : {}),
    });
    this.instancesByAddress.set(address, instance);
    return instance;
  }

  /** Resolves when the instance's current turn has ended (at once when it has none). */
  private afterCurrentTurn(instance: { inFlight: { event: AgentEvent } | undefined }): Promise<void> {
    if (!instance.inFlight) return Promise.resolve();
    return this.waiters.ended(instance.inFlight.event.id);
  }
}
