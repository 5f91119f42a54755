/**
 * The Orchestrator: the agent instances of one Swarm — one Instance (durable inbox + supervised child) per (agent,
 * instanceKey), process slots, pending requests and reply routing, wired together once here (wire-orchestrator.ts).
 * Its surface: `start` (resume what the inboxes hold), `submit`/`ingest` (accept an event durably, optionally await
 * its turn), `reload` (apply a new validated bundle), `processes`/`instances` (tables), the store's reads, and
 * `shutdown` (ask, wait, then kill). Connectors, the HTTP API and restarts are composed around it by the daemon.
 */
import type { Bundle } from "../config/types.ts";
import { systemClock, type Clock } from "../shared/clock.ts";
import { newId, type IdGenerator } from "../shared/ids.ts";
import { silentLogger, type Logger } from "../shared/logger.ts";
import { instanceAddress, type AgentEvent } from "../protocol/agent-event.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import type { Message } from "../protocol/conversation.ts";
import { processTable, type ProcessInfo } from "../supervision/process-table.ts";
import type { ApprovalDesk } from "./approvals/approval-desk.ts";
import type { PermitBroker } from "./limits/permit-broker.ts";
import type { BudgetStatus } from "./limits/budget-ledger.ts";
import type { Instance } from "./instances/instance.ts";
import { acceptDelivered, resumeUnanswered } from "./instances/resume-unanswered.ts";
import { instanceRows, type InstanceRow } from "./instances/stored-instances.ts";
import type { ReloadPlan } from "./reload/reload-plan.ts";
import { restartInstances } from "./reload/restart-instances.ts";
import type { OutcomeRouter } from "./routing/outcome-router.ts";
import type { PendingRequests } from "./routing/pending-requests.ts";
import { RuntimeEventHub, type RuntimeEventListener } from "./routing/runtime-event-hub.ts";
import { notYetDue, readAcceptedEvents, readEventState, type EventState } from "./routing/event-state.ts";
import { refuseWhileStopping, submitTarget } from "./submit-checks.ts";
import { stopInstances } from "./instances/stop-instances.ts";
import { submitEvent } from "./submit-event.ts";
import { OutcomeWaiters, stoppedOutcome } from "./routing/turn-outcomes.ts";
import type { OrchestratorApi } from "./orchestrator-api.ts";
import type { RuntimeEventRetention } from "./runtime-event-retention.ts";
import { wireOrchestrator } from "./wire-orchestrator.ts";
import type { OrchestratorOptions, SubmitOptions, Submitted } from "./orchestrator-options.ts";
import { swarmView, type SwarmView } from "./swarm-view.ts";
import type { RuntimeEventQuery, Store, StoredRuntimeEvent, WriteOptions } from "../store/store.ts";
import { openStateStore } from "../store/open-state-store.ts";

export type { OrchestratorOptions, RestartRequester, SubmitOptions, Submitted } from "./orchestrator-options.ts";

export class Orchestrator implements OrchestratorApi {
  private bundle: Bundle;
  private view: SwarmView;
  private accepting = true;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly logger: Logger;
  private readonly instancesByAddress = new Map<string, Instance>();
  private readonly waiters = new OutcomeWaiters();
  private readonly pending: PendingRequests;
  private readonly outcomes: OutcomeRouter;
  private readonly newInstance: (agent: string, instanceKey: string) => Instance;
  private readonly renewProcesses: (agents: readonly string[] | undefined) => void;
  private readonly events: RuntimeEventHub;
  /** The one store of the swarm's durable state. */
  readonly store: Store;
  /** Pending approvals of held tool calls, and people's decisions on them. */
  readonly approvals: ApprovalDesk;
  /** Deletes runtime events past the Swarm's retention, in the background (runtime-event-retention.ts). */
  readonly retention: RuntimeEventRetention;
  /** Budgets and provider pacing of model calls (docs/limits.md). */
  readonly permits: PermitBroker;

  constructor(private readonly options: OrchestratorOptions) {
    this.bundle = options.bundle;
    this.view = swarmView({ bundle: options.bundle, ...(options.swarm ? { swarm: options.swarm } : {}) });
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? newId;
    this.logger = options.logger ?? silentLogger();
    this.store = options.store ?? openStateStore({ stateRoot: options.stateRoot, logger: this.logger });
    this.events = new RuntimeEventHub({ store: this.store, swarm: () => this.view.instanceKey });
    const wired = wireOrchestrator({
      options,
      store: this.store,
      clock: this.clock,
      ids: this.ids,
      logger: this.logger,
      waiters: this.waiters,
      events: this.events,
      view: () => this.view,
      bundle: () => this.bundle,
      accepting: () => this.accepting,
      gracePeriodMs: () => this.gracePeriodMs(),
      accept: (event, options) => this.accept(event, options),
      instance: (agent, instanceKey) => this.instance(agent, instanceKey),
      existing: (address) => this.instancesByAddress.get(address),
      instances: () => this.instancesByAddress.values(),
    });
    this.pending = wired.pending;
    this.outcomes = wired.outcomes;
    this.newInstance = wired.newInstance;
    this.renewProcesses = wired.renewProcesses;
    this.approvals = wired.approvals;
    this.retention = wired.retention;
    this.permits = wired.permits;
  }

  budgets(): Promise<BudgetStatus[]> {
    return this.permits.budgets();
  }

  get swarm(): SwarmView {
    return this.view;
  }

  get currentBundle(): Bundle {
    return this.bundle;
  }

  /**
   * Resumes every accepted, unanswered event of the swarm's store (and wakes instances with results waiting). In
   * cluster mode the cluster's stream holds the unanswered events and hands each to its instance's owner
   * (`acceptHere`), so nothing is resumed from the local store on its own.
   */
  async start(): Promise<{ resumed: number }> {
    this.retention.start();
    if (this.options.placement) return { resumed: 0 };
    const resumed = await resumeUnanswered({
      store: this.store,
      view: this.view,
      clock: this.clock,
      logger: this.logger,
      pending: this.pending,
      instance: (agent, instanceKey) => this.instance(agent, instanceKey),
    });
    await this.approvals.start();
    return resumed;
  }

  /** Durably accepts one event; returns once it is on disk. `outcome` settles when its turn ends. */
  submit(options: SubmitOptions): Submitted {
    const { view, clock, ids, waiters, events } = this;
    return submitEvent({ view, clock, ids, waiters, events, accept: (event) => this.accept(event) }, options);
  }

  /** Connectors submit their routed events here (same durability as `submit`). */
  ingest(options: SubmitOptions & { connection: string }): Submitted {
    const { connection, ...rest } = options;
    return this.submit({
      ...rest,
      type: options.type ?? "connector.event",
      source: options.source ?? { kind: "connector", name: connection },
    });
  }

  /**
   * Accepts an event with a stable id exactly once: when the store holds `eventId` already (accepted before a
   * restart, answered or not), nothing is accepted or delivered again and the answer says `duplicate`. The same
   * idempotent accept as `submit`, so the event's row is the one durable record that it was accepted.
   */
  async submitOnce(options: SubmitOptions & { eventId: string }): Promise<Submitted & { duplicate: boolean }> {
    const record = await this.store.inboxRecord(this.view.instanceKey, options.eventId);
    if (record === undefined) return { ...this.submit(options), duplicate: false };
    const { event } = record;
    return {
      eventId: event.id,
      agent: event.agent,
      instanceKey: event.instanceKey,
      accepted: Promise.resolve(),
      outcome: record.outcome ? Promise.resolve(record.outcome) : this.waiters.outcome(event.id),
      duplicate: true,
    };
  }

  /** Cluster mode: an event the cluster delivers to this node, which owns its instance (see acceptDelivered). */
  async acceptHere(event: AgentEvent): Promise<{ outcome?: TurnOutcome }> {
    refuseWhileStopping(this.accepting);
    return acceptDelivered({
      store: this.store,
      swarm: this.view.instanceKey,
      event,
      now: this.clock.now(),
      instance: () => this.instance(event.agent, event.instanceKey),
      held: () => this.approvals.armInstance(event.agent, event.instanceKey),
    });
  }

  /** Cluster mode: the answer of an event accepted here and run on another node (its waiters, its requester). */
  answeredElsewhere(event: AgentEvent, outcome: TurnOutcome): void {
    this.outcomes.answeredElsewhere(event, outcome);
  }

  /** Cluster mode: this node no longer owns the instance; its child stops and it is forgotten here. */
  async release(agent: string, instanceKey: string, reason: string): Promise<void> {
    const instance = this.instancesByAddress.get(instanceAddress(agent, instanceKey));
    this.approvals.disarm(agent, instanceKey); // its deadlines are the next owner's
    if (!instance) return;
    this.instancesByAddress.delete(instance.address);
    instance.close();
    await instance.stop({ reason, gracePeriodMs: 0 });
    // A node that lost its instances' leases keeps no empty agent process waiting for them.
    this.options.spawner.stopIdle?.();
  }

  /** The agent rows of the process table. */
  processes(): ProcessInfo[] {
    return processTable([...this.instancesByAddress.values()]);
  }

  /** Known instances (live, or with state in the store), with status and queue length. */
  async instances(): Promise<InstanceRow[]> {
    const stored = await this.store.instances(this.view.instanceKey);
    return instanceRows({ supervisors: [...this.instancesByAddress.values()], stored });
  }

  /** The swarm's runtime events (`GET /v1/instances/.../events`, `goondan logs`, watchers catching up). */
  runtimeEvents(query: Omit<RuntimeEventQuery, "swarm">): Promise<StoredRuntimeEvent[]> {
    return this.store.runtimeEvents({ ...query, swarm: this.view.instanceKey });
  }

  /** Where an accepted event stands (`GET /v1/events/:eventId`); undefined when the store never accepted it. */
  eventState(eventId: string): Promise<EventState | undefined> {
    return readEventState(this.store, this.view.instanceKey, eventId, this.instancesByAddress);
  }

  acceptedEvents = (query: { idPrefix: string; limit: number }) =>
    readAcceptedEvents(this.store, this.view.instanceKey, query, this.instancesByAddress);

  /** Events accepted to be delivered later (`agents__schedule`, AgentEvent.notBefore), soonest first. */
  async scheduled(): Promise<AgentEvent[]> {
    return notYetDue(await this.store.unanswered(this.view.instanceKey), this.clock.now());
  }

  /** An instance's stored conversation, oldest message first (the studio's conversation view). */
  async messages(agent: string, instanceKey: string): Promise<Message[]> {
    return this.store.instanceState({ swarm: this.view.instanceKey, agent, instanceKey }).messages;
  }

  /** Calls `listener` with every batch of runtime events the instances send, as they arrive; returns the unsubscribe. */
  onRuntimeEvents(listener: RuntimeEventListener): () => void {
    return this.events.subscribe(listener);
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
    this.renewProcesses(plan.agents);
    const restarted = await restartInstances({
      supervisors: [...this.instancesByAddress.values()],
      view,
      plan,
      gracePeriodMs: this.gracePeriodMs(),
      startAgain: () => this.accepting,
      clearConversation: (instance) => this.store.clearConversation({ swarm: view.instanceKey, ...instance }),
      retire: (instance) => this.instancesByAddress.delete(instance.address),
    });
    this.logger.info({ restarted, reasons: plan.reasons ?? [] }, "reloaded");
    return { restarted };
  }

  /** Stops accepting, asks every child to finish and exit, SIGKILLs after the grace period. */
  async shutdown(options: { reason: string; gracePeriodMs?: number }): Promise<void> {
    this.accepting = false;
    this.approvals.close();
    await stopInstances({
      instances: [...this.instancesByAddress.values()],
      pending: this.pending,
      requester: (address) => this.instancesByAddress.get(address),
      reason: options.reason,
      gracePeriodMs: options.gracePeriodMs ?? this.gracePeriodMs(),
    });
    // A turn that ended while stopping is answered once its commit is durable, not told the orchestrator stopped.
    await this.outcomes.settled();
    this.pending.clear();
    this.waiters.settleAll(stoppedOutcome);
    this.options.spawner.stopIdle?.();
    await this.retention.stop();
    await this.store.close();
    this.logger.info({ reason: options.reason }, "orchestrator stopped");
  }

  /** Accepts an event into the store, then its instance's queue once committed (Instance.accept); resolves once durable. */
  private accept(event: AgentEvent, options?: WriteOptions): Promise<void> {
    refuseWhileStopping(this.accepting);
    if (this.options.placement) return this.options.placement.accept(event);
    return this.instance(event.agent, event.instanceKey).accept(event, this.clock.now(), options);
  }

  private gracePeriodMs(): number {
    return this.view.policy.shutdown.gracePeriodSeconds * 1000;
  }

  private instance(agent: string, instanceKey: string): Instance {
    const address = instanceAddress(agent, instanceKey);
    const existing = this.instancesByAddress.get(address);
    if (existing) return existing;
    const instance = this.newInstance(agent, instanceKey);
    this.instancesByAddress.set(address, instance);
    return instance;
  }
}
