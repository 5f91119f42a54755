/**
 * One agent instance (agent, instanceKey) as the orchestrator holds it: its event queue over the store, and a
 * Supervisor (src/supervision) over its child process. It asks for a child when it has work, hands a new child its
 * durable state (`hydrate`), delivers events one at a time, makes the child's commits durable (a step's, and each
 * turn's end together with the answer to its event) before anyone hears of them, redelivers after a crash (with how
 * the child died), gives up a poison event or the waiting events of an instance that cannot start, and stops itself
 * when idle longer than `idleSeconds`. Its status is the supervisor's, with `running` told apart as `idle` or
 * `processing`.
 */
import type { Logger } from "../../shared/logger.ts";
import { instanceAddress, type AgentEvent } from "../../protocol/agent-event.ts";
import type { ErrorInfo } from "../../protocol/error-info.ts";
import type { ChildMessage, ChildToParent, ParentToChild } from "../../protocol/ipc-messages.ts";
import { OneShotTimer, type TimerHandle } from "../../shared/clock.ts";
import type { ChildProcess } from "../../supervision/child-process.ts";
import type { PoolMember } from "../../supervision/process-pool.ts";
import type { SupervisedExit, SupervisorStatus } from "../../supervision/child-spec.ts";
import { Supervisor } from "../../supervision/supervisor.ts";
import type { InstanceRef, WriteOptions } from "../../store/store.ts";
import { commitStep, commitTurn, hydrateChild } from "./child-state.ts";
import { deliveryOf, InstanceQueue, type InboxEntry } from "./instance-queue.ts";
import type { InstanceOptions } from "./instance-options.ts";
import { StartFailures } from "./start-failures.ts";

/** Timers hold at most 2^31-1 ms; an event due later is deferred again when this one fires. */
const MAX_TIMER_MS = 2_147_483_647;

export type InstanceStatus = Exclude<SupervisorStatus, "running"> | "idle" | "processing";

export class Instance implements PoolMember {
  readonly agent: string;
  readonly instanceKey: string;
  readonly address: string;
  readonly ref: InstanceRef;
  lastActiveAt: number;
  private readonly supervisor: Supervisor;
  private readonly events: InstanceQueue;
  private readonly startFailures = new StartFailures();
  private readonly logger: Logger;
  private readonly idleTimer: OneShotTimer;
  /** Events not due yet (`notBefore`), each waiting for its time. */
  private readonly deferred = new Map<string, TimerHandle>();

  constructor(private readonly options: InstanceOptions) {
    this.agent = options.agent;
    this.instanceKey = options.instanceKey;
    this.address = instanceAddress(options.agent, options.instanceKey);
    this.ref = { swarm: options.swarm, agent: options.agent, instanceKey: options.instanceKey };
    this.events = new InstanceQueue((eventId, crash) => options.store.recordInterrupted(options.swarm, eventId, crash));
    this.lastActiveAt = options.clock.now();
    this.idleTimer = new OneShotTimer(options.clock);
    this.logger = options.logger.child({ agent: options.agent, instanceKey: options.instanceKey });
    const { pool } = options;
    this.supervisor = new Supervisor({
      spec: {
        address: this.address,
        spawnRequest: options.spawnRequest,
        readyMessage: "ready",
        readyTimeoutMs: options.readyTimeoutMs ?? 30_000,
      },
      spawner: options.spawner,
      clock: options.clock,
      logger: this.logger,
      policy: () => options.policy().restart,
      gate: {
        request: () => pool.request(this),
        started: () => pool.started(this),
        released: () => pool.released(this),
      },
      hooks: {
        wanted: () => this.hasWork(),
        spawned: (child) =>
          hydrateChild({
            store: options.store,
            ref: this.ref,
            child,
            current: () => this.supervisor.child === child,
            logger: this.logger,
          }),
        ready: (child) => this.onReady(child),
        message: (child, message) => this.onMessage(child, message),
        exited: (ended) => this.onExited(ended),
      },
    });
  }

  get status(): InstanceStatus {
    const status = this.supervisor.status;
    if (status !== "running") return status;
    return this.events.inFlight ? "processing" : "idle";
  }

  get pid(): number | undefined {
    return this.supervisor.pid;
  }
  get live(): boolean {
    return this.supervisor.child !== undefined;
  }
  get restarts(): number {
    return this.supervisor.restarts;
  }
  get consecutiveCrashes(): number {
    return this.supervisor.consecutiveCrashes;
  }
  get startedAt(): number | undefined {
    return this.supervisor.startedAt;
  }

  /** True while it waits for a process slot (maxProcesses reached). */
  get awaitingSlot(): boolean {
    return this.supervisor.awaitingSlot;
  }

  /** Accepted events not yet delivered, FIFO. */
  get queue(): readonly InboxEntry[] {
    return this.events.waiting;
  }

  get inFlight(): InboxEntry | undefined {
    return this.events.inFlight;
  }

  /** True while there is work that needs the child: queued or in-flight events. */
  hasWork(): boolean {
    return this.events.hasWork();
  }

  /**
   * Accepts an event: queued at once, durable when the promise resolves (delivery may overlap the sync). An ordered
   * store applies the insert in this same synchronous block, so the child is handed the event first: its answer is
   * handled later and commits after the insert. A refused insert takes back the event unless it was delivered.
   */
  accept(event: AgentEvent, now: number, options?: WriteOptions): Promise<void> {
    const { store, swarm } = this.options;
    const entry: InboxEntry = { event, crashes: 0, deliveries: 0, acceptedAt: now };
    const queuedFirst = store.ordered && !this.events.has(event.id);
    if (queuedFirst) this.enqueue(entry);
    try {
      const durable = store.accept(swarm, event, now, options);
      if (!store.ordered) this.enqueue(entry);
      return durable;
    } catch (error) {
      if (queuedFirst) this.withdraw(event.id);
      throw error;
    }
  }

  /** Queues an event the store already holds (found unanswered when the orchestrator started). */
  enqueue(entry: InboxEntry): void {
    if (this.deferUntilDue(entry)) return;
    if (!this.events.push(entry)) return;
    this.lastActiveAt = this.options.clock.now();
    if (this.startFailures.unstartable && !this.live) {
      // It cannot start: answer at once rather than at the deadline (after the caller registered its wait).
      queueMicrotask(() => this.giveUpWaiting());
      return;
    }
    this.kick();
  }

  /** A turn of this instance waits for approvals (found at start): nothing is delivered until they are decided. */
  awaitApproval(): void {
    this.events.awaitingApproval = true;
  }

  /** Every approval the event's turn stopped for is decided: it is delivered first, with the decisions. */
  approvalsDecided(entry: InboxEntry): void {
    if (this.events.approvalsDecided(entry)) this.kick();
  }

  /** Takes an accepted event that has not been delivered yet out of the queue (its deadline passed). */
  withdraw(eventId: string): InboxEntry | undefined {
    return this.events.withdraw(eventId);
  }

  /**
   * Hands a reply over. An async one is stored already (a pending result: an instance without a child is started for
   * it). A blocking one goes to the turn waiting for it, on a draining child too; without that turn it is dropped:
   * the redelivered turn reattaches to the request and gets it from the store.
   */
  deliverReply(reply: ParentToChild["delegate_result"], options: { blocking: boolean }): void {
    const child = this.supervisor.child;
    const turnAlive =
      child !== undefined &&
      (this.status === "idle" ||
        this.status === "processing" ||
        (this.status === "draining" && this.inFlight !== undefined));
    if (turnAlive && child.send("delegate_result", reply)) return;
    if (options.blocking)
      return this.logger.debug(
        { correlationId: reply.correlationId },
        "reply for a turn no longer running; its redelivery reattaches",
      );
    if (!this.live) this.ensureStarted();
  }

  runtimeResult(result: ParentToChild["runtime_result"]): void {
    this.supervisor.child?.send("runtime_result", result);
  }

  /** Starts the child without an event (`agents__spawn`, pending results to show). */
  ensureStarted(): void {
    this.supervisor.ensureRunning();
  }

  /** Called by the pool once a slot is granted. */
  start(): void {
    this.idleTimer.clear();
    this.supervisor.grant();
  }

  /** Asks the child to finish its turn and exit; SIGKILL after the grace period. Resolves when it exited. */
  stop(options: { reason: string; gracePeriodMs: number }): Promise<void> {
    // A deliberate stop (reload, shutdown) gives the next start a fresh count.
    this.startFailures.reset();
    this.idleTimer.clear();
    return this.supervisor.stop(options);
  }

  /** While draining: the running turn waits for a request that will not run before the restart, so it ends now. */
  cutTurnShort(reason: string): void {
    if (this.status !== "draining" || !this.inFlight) return;
    this.logger.info({ eventId: this.inFlight.event.id, reason }, "draining turn cut short");
    this.supervisor.child?.send("shutdown", { gracePeriodMs: 0, reason });
  }

  /** No more starts or restarts (orchestrator shutdown, agent gone from the swarm). */
  close(): void {
    for (const timer of this.deferred.values()) this.options.clock.clearTimeout(timer);
    this.deferred.clear();
    this.idleTimer.clear();
    this.supervisor.close();
  }

  /** Holds new starts (a reload replacing the child) until `resume`. */
  hold(): void {
    this.supervisor.hold();
  }
  resume(): void {
    this.supervisor.resume();
    this.deliverNext();
  }

  /**
   * An event not due yet (`notBefore`, agents__schedule) waits for its time here, not in the queue: it is already in
   * the store, so a restart finds it unanswered and defers it again. True when it was deferred.
   */
  private deferUntilDue(entry: InboxEntry): boolean {
    const due = entry.event.notBefore;
    const now = this.options.clock.now();
    if (due === undefined || due <= now) return false;
    if (this.deferred.has(entry.event.id)) return true;
    const timer = this.options.clock.setTimeout(
      () => {
        this.deferred.delete(entry.event.id);
        this.enqueue(entry);
      },
      Math.min(due - now, MAX_TIMER_MS),
    );
    this.deferred.set(entry.event.id, timer);
    return true;
  }

  private kick(): void {
    if (this.live) this.deliverNext();
    else this.supervisor.kick();
  }

  private deliverNext(): void {
    const child = this.supervisor.child;
    if (!child || this.status !== "idle") return;
    const entry = this.events.deliverNext();
    if (!entry) {
      this.enterIdle();
      return;
    }
    this.idleTimer.clear();
    this.lastActiveAt = this.options.clock.now();
    if (entry.deliveries > 1) this.options.hooks.redelivered(this, entry);
    child.send("event", deliveryOf(entry));
    child.watchHeartbeat(this.options.policy().lifecycle.heartbeatTimeoutSeconds * 1000);
  }

  private enterIdle(): void {
    this.idleTimer.arm(this.options.policy().lifecycle.idleSeconds * 1000, () => {
      if (this.status === "idle" && !this.hasWork())
        void this.stop({ reason: "idle", gracePeriodMs: this.options.policy().shutdown.gracePeriodSeconds * 1000 });
    });
    this.options.pool.idled(this);
  }

  private onReady(child: ChildProcess): void {
    this.startFailures.reset();
    this.logger.info({ pid: child.pid, restarts: this.restarts }, "instance.ready");
    this.deliverNext();
  }

  private onMessage(child: ChildProcess, message: ChildMessage): void {
    const hooks = this.options.hooks;
    switch (message.type) {
      case "turn_started":
        return void (this.lastActiveAt = this.options.clock.now());
      case "turn_result":
        this.onTurnResult(child, message.payload);
        return;
      case "commit":
        if (message.payload.approvals?.applied !== undefined)
          this.events.markApplied(message.payload.approvals.applied);
        commitStep({ store: this.options.store, ref: this.ref, child, commit: message.payload });
        return;
      case "turn_text":
        return hooks.turnText(this, message.payload);
      case "runtime_events":
        return hooks.runtimeEvents(this, message.payload.events);
      case "runtime_call":
        this.lastActiveAt = this.options.clock.now();
        hooks.runtimeCall(this, message.payload);
        return;
      case "results_waiting":
        return hooks.resultsWaiting(this, message.payload as ChildToParent["results_waiting"]);
      case "fatal":
        this.logger.error(
          { code: message.payload.code, detail: message.payload.message },
          "instance reported a fatal start-up error",
        );
        this.startFailures.reportFatal(message.payload);
        return;
      default:
        return;
    }
  }

  /** The turn's end and its answer are committed together and routed (outcome-router.ts says when); a store that cannot write ends the child. */
  private onTurnResult(child: ChildProcess, payload: ChildToParent["turn_result"]): void {
    const { commit, ...outcome } = payload;
    const entry = this.events.finish(outcome.eventId, outcome.status === "awaiting_approval");
    if (!entry) {
      this.logger.warn({ eventId: outcome.eventId }, "turn_result for an event not in flight; dropped");
      return;
    }
    this.supervisor.healthy();
    this.lastActiveAt = this.options.clock.now();
    child.unwatch();
    // Routed first (on an ordered store, outcome-router.ts), written in this same block: what the requester does with it commits after.
    const committed = Promise.withResolvers<void>();
    this.options.hooks.turnResult(this, entry, outcome, committed.promise);
    const durable = commitTurn({
      store: this.options.store,
      ref: this.ref,
      commit: commit ?? {},
      outcome,
      event: entry.event,
    });
    durable.then(committed.resolve, committed.reject);
    durable.catch((error: Error) => {
      this.logger.error(
        { eventId: outcome.eventId, error: error.message },
        "could not commit a turn; its event stays unanswered and the child restarts",
      );
      this.events.putBack(entry);
      child.kill();
    });
    this.deliverNext();
  }

  private onExited(ended: SupervisedExit): { givenUp: boolean } | void {
    const entry = this.events.takeInFlight();
    if (ended.how !== "crashed") {
      // A turn cut short by the grace period was never answered: it stays first.
      if (entry) this.events.putBack(entry);
      return;
    }
    this.logger.warn({ eventId: entry?.event.id, why: ended.why }, "instance.crashed");
    if (entry && this.events.crashedWith(entry, this.options.policy().restart, ended.why))
      this.options.hooks.poisoned(this, entry);
    if (!ended.beforeReady) return;
    // A child that never became ready (start-failures.ts): once the instance is given up on, its waiting events
    // are answered, and it backs off (crashLoopBackOff) and keeps trying, so a fix recovers it.
    const givenUp = this.startFailures.failed({
      address: this.address,
      exit: ended.exit,
      ...(ended.cause ? { cause: ended.cause } : {}),
      policy: this.options.policy().restart,
    });
    if (givenUp) this.giveUpWaiting();
    return { givenUp };
  }

  /** Answers every waiting event of an instance that cannot start (see `onExited`). */
  private giveUpWaiting(): void {
    const cause: ErrorInfo | undefined = this.startFailures.unstartable;
    if (!cause || this.live) return;
    for (const entry of this.events.giveUpWaiting()) this.options.hooks.poisoned(this, entry, cause);
  }
}
