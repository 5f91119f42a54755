/**
 * One agent instance (agent, instanceKey) as the orchestrator holds it: its event queue over the store, and a
 * Supervisor (src/supervision) over its child process. It asks for a child when it has work, hands a new child its
 * durable state (`hydrate`), delivers events one at a time, makes the child's commits durable (a step's, and each
 * turn's end together with the answer to its event) before anyone hears of them, redelivers after a crash (with how
 * the child died), gives up a poison event or the waiting events of an instance that cannot start, and stops itself
 * when idle longer than `idleSeconds` (what it does with each message and the exit of its child is
 * on-child-message.ts; events not due yet wait in deferred-events.ts). Its status is the supervisor's, with `running`
 * told apart as `idle` or `processing`.
 */
import type { Logger } from "../../shared/logger.ts";
import { instanceAddress, type AgentEvent } from "../../protocol/agent-event.ts";
import type { ErrorInfo } from "../../protocol/error-info.ts";
import type { ParentToChild } from "../../protocol/ipc-messages.ts";
import { OneShotTimer } from "../../shared/clock.ts";
import type { ChildProcess } from "../../supervision/child-process.ts";
import type { PoolMember } from "../../supervision/process-pool.ts";
import type { SupervisorStatus } from "../../supervision/child-spec.ts";
import type { Supervisor } from "../../supervision/supervisor.ts";
import { superviseInstance } from "./instance-supervisor.ts";
import type { InstanceRef, WriteOptions } from "../../store/store.ts";
import { hydrateChild } from "./child-state.ts";
import { DeferredEvents } from "./deferred-events.ts";
import { deliveryOf, InstanceQueue, type InboxEntry } from "./instance-queue.ts";
import type { InstanceOptions } from "./instance-options.ts";
import { onChildExit, onChildMessage, type InstanceParts } from "./on-child-message.ts";
import { deliverReply, replyRefused } from "./replies.ts";
import { StartFailures } from "./start-failures.ts";
import { StoreFaults } from "./store-faults.ts";

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
  private readonly deferred: DeferredEvents;
  private readonly storeFaults = new StoreFaults();

  constructor(private readonly options: InstanceOptions) {
    this.agent = options.agent;
    this.instanceKey = options.instanceKey;
    this.address = instanceAddress(options.agent, options.instanceKey);
    this.ref = { swarm: options.swarm, agent: options.agent, instanceKey: options.instanceKey };
    this.events = new InstanceQueue((eventId, crash) => options.store.recordInterrupted(options.swarm, eventId, crash));
    this.lastActiveAt = options.clock.now();
    this.idleTimer = new OneShotTimer(options.clock);
    this.deferred = new DeferredEvents(options.clock);
    this.logger = options.logger.child({ agent: options.agent, instanceKey: options.instanceKey });
    this.supervisor = superviseInstance(this, options, {
      logger: this.logger,
      parts: () => this.parts,
      onReady: (child) => this.onReady(child),
      spawned: () => this.deliverNext(),
    });
  }

  slotGroup(): { key: string; max: number; cheapStart: boolean } | undefined {
    return this.options.slotGroup?.();
  }

  get status(): InstanceStatus {
    const status = this.supervisor.status;
    if (status !== "running") return status;
    return this.events.inFlight || this.events.committing ? "processing" : "idle";
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
   * Accepts an event: queued at once (a child may start). An idle child gets it before its insert is committed, on an
   * ordered store, with the commit made right behind the hand-over (`deliverNext`); otherwise it waits for the commit.
   * Resolves once durable. An insert can be refused at its commit (a full disk): the promise rejects, and nothing of
   * the event is stored or run (a child it was handed to holds it unsaved: store-faults.ts; docs/limits.md).
   */
  accept(event: AgentEvent, now: number, options?: WriteOptions): Promise<void> {
    const entry: InboxEntry = { event, crashes: 0, deliveries: 0, acceptedAt: now, unstored: true };
    const durable = this.options.store.accept(this.options.swarm, event, now, {
      ...options,
      committed: () => {
        delete entry.unstored;
        this.kick();
        options?.committed?.();
      },
    });
    durable.catch(() => {
      if (!entry.unstored) return;
      entry.refused = true;
      const child = this.supervisor.child;
      if (this.events.withdrawRefused(entry) && child) this.storeFaults.holdsUnsaved.add(child);
    });
    this.enqueue(entry);
    return durable;
  }

  /** Queues an event the store already holds (found unanswered when the orchestrator started). */
  enqueue(entry: InboxEntry): void {
    if (entry.refused) return;
    if (this.deferred.defer(entry, (due) => this.enqueue(due))) return;
    if (!this.events.push(entry)) return;
    this.lastActiveAt = this.options.clock.now();
    if (this.startFailures.unstartable && !this.live) {
      // It cannot start: answer at once rather than at the deadline (after the caller registered its wait).
      queueMicrotask(() => this.giveUpWaiting());
      return;
    }
    this.kick();
  }

  /** Whether the event is queued or in flight here. */
  holds(eventId: string): boolean {
    return this.events.has(eventId);
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

  /** Hands a reply over (replies.ts); true when a running turn took it. */
  deliverReply(reply: ParentToChild["delegate_result"], options: { blocking: boolean }): boolean {
    return deliverReply(this.parts, reply, options);
  }

  /** A blocking reply it took came from a turn whose commit the store refused: held unsaved (replies.ts). */
  replyRefused(): void {
    replyRefused(this.parts);
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

  private get parts(): InstanceParts {
    const { options, ref, logger, events, supervisor, startFailures } = this;
    return {
      instance: this,
      options,
      ref,
      logger,
      events,
      supervisor,
      startFailures,
      deliverNext: () => this.deliverNext(),
      giveUpWaiting: () => this.giveUpWaiting(),
      storeFaults: this.storeFaults,
    };
  }

  private kick(): void {
    if (this.live) this.deliverNext();
    else this.supervisor.kick();
  }

  private deliverNext(): void {
    const child = this.supervisor.child;
    // A child still starting takes its first event at once and holds it until it is ready: no round trip waited.
    if (!child || (this.status !== "idle" && this.status !== "spawning")) return;
    // The child waits for this event alone: its insert is committed now, not at the end of the tick; on an ordered
    // store right after the hand-over (the commit's time off the hop), before any message of the child is heard.
    const unstored = this.events.unstoredNext !== undefined;
    const early = unstored && this.options.store.ordered;
    if (unstored && !early) this.options.store.commitNow();
    const entry = this.events.deliverNext(early); // none when the commit delivered it (its `committed` kicked)
    if (!entry) {
      if (!this.events.unstoredNext && this.status === "idle") this.enterIdle();
      return;
    }
    this.idleTimer.clear();
    this.lastActiveAt = this.options.clock.now();
    if (entry.deliveries > 1) this.options.hooks.redelivered(this, entry);
    child.send("event", deliveryOf(entry));
    if (early) this.options.store.commitNow();
    if (this.status !== "spawning") this.watchHeartbeat(child); // else from its `ready`: it says nothing while starting
  }

  private watchHeartbeat(child: ChildProcess): void {
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
    // A conversation's start is routine (debug); its restart after a crash is news.
    if (this.restarts > 0) this.logger.info({ pid: child.pid, restarts: this.restarts }, "instance.ready");
    else this.logger.debug({ pid: child.pid, restarts: 0 }, "instance.ready");
    if (this.inFlight) this.watchHeartbeat(child); // handed over while it started
    this.deliverNext();
  }

  /** Answers every waiting event of an instance that cannot start (see `onChildExit`). */
  private giveUpWaiting(): void {
    const cause: ErrorInfo | undefined = this.startFailures.unstartable;
    if (!cause || this.live) return;
    for (const entry of this.events.giveUpWaiting()) this.options.hooks.poisoned(this, entry, cause);
  }
}
