/**
 * One agent instance (agent, instanceKey) as the orchestrator holds it: its durable inbox and event queue, the
 * replies held for it, and a Supervisor (src/supervision) over its child process. It asks for a child when it
 * has work, delivers inbox events one at a time, acknowledges each when its turn_result arrives, redelivers after
 * a crash (with an attempt count and how the child died), gives up a poison event or the waiting events of an
 * instance that cannot start, stops itself when idle longer than `idleSeconds`, and hands replies to the child
 * once it is ready. Its status is the supervisor's, with `running` told apart as `idle` or `processing`.
 */
import type { Logger } from "../../shared/logger.ts";
import { instanceAddress } from "../../protocol/agent-event.ts";
import type { ErrorInfo } from "../../protocol/error-info.ts";
import type { ChildMessage, ChildToParent, ParentToChild } from "../../protocol/ipc-messages.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { TimerHandle } from "../../shared/clock.ts";
import type { ChildProcess } from "../../supervision/child-process.ts";
import type { PoolMember } from "../../supervision/process-pool.ts";
import { Supervisor, type SupervisedExit, type SupervisorStatus } from "../../supervision/supervisor.ts";
import type { DurableInbox, HeldReply, InboxEntry } from "./durable-inbox.ts";
import { InstanceQueue } from "./instance-queue.ts";
import type { InstanceOptions } from "./instance-options.ts";
import { ReplyBacklog } from "./reply-backlog.ts";
import { StartFailures } from "./start-failures.ts";

export type InstanceStatus = Exclude<SupervisorStatus, "running"> | "idle" | "processing";

export class Instance implements PoolMember {
  readonly agent: string;
  readonly instanceKey: string;
  readonly address: string;
  readonly inbox: DurableInbox;
  lastActiveAt: number;
  private readonly supervisor: Supervisor;
  private readonly events: InstanceQueue;
  private readonly replyBacklog: ReplyBacklog;
  private readonly startFailures = new StartFailures();
  private readonly logger: Logger;
  private idleTimer: TimerHandle | undefined;

  constructor(private readonly options: InstanceOptions) {
    this.agent = options.agent;
    this.instanceKey = options.instanceKey;
    this.address = instanceAddress(options.agent, options.instanceKey);
    this.inbox = options.inbox;
    this.events = new InstanceQueue(options.inbox);
    this.replyBacklog = new ReplyBacklog(options.inbox, options);
    this.lastActiveAt = options.clock.now();
    this.logger = options.logger.child({ agent: options.agent, instanceKey: options.instanceKey });
    const { pool } = options;
    this.supervisor = new Supervisor({
      spec: { address: this.address, spawnRequest: options.spawnRequest, readyMessage: "ready", readyTimeoutMs: options.readyTimeoutMs ?? 30_000 },
      spawner: options.spawner,
      clock: options.clock,
      logger: this.logger,
      policy: () => options.policy().restart,
      gate: { request: () => pool.request(this), started: () => pool.started(this), released: () => pool.released(this) },
      hooks: { wanted: () => this.hasWork(), ready: (child) => this.onReady(child), message: (child, message) => this.onMessage(message), exited: (ended) => this.onExited(ended) },
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

  enqueue(entry: InboxEntry): void {
    this.events.push(entry);
    this.lastActiveAt = this.options.clock.now();
    if (this.startFailures.unstartable && !this.live) {
      // It cannot start: answer at once rather than at the deadline (after the caller registered its wait).
      queueMicrotask(() => this.giveUpWaiting());
      return;
    }
    this.kick();
  }

  /** Removes an accepted event that has not been delivered yet (its deadline passed). */
  withdraw(eventId: string): InboxEntry | undefined {
    return this.events.withdraw(eventId);
  }

  /**
   * Delivers a reply to this instance now, or once its child is ready again (dropped if `deadline` passed by
   * then). An instance without a child is started for it: the reply to an async request wakes it. A reply the
   * running turn waits for (`blocking`) also reaches a draining child: its turn then ends and the drain with it,
   * instead of waiting out the grace period.
   */
  deliverReply(reply: ParentToChild["delegate_result"], options: { deadline?: number; blocking?: boolean } = {}): void {
    if (this.supervisor.send("delegate_result", reply)) return;
    const child = this.supervisor.child;
    if (options.blocking === true && this.status === "draining" && this.inFlight && child?.send("delegate_result", reply)) return;
    this.replyBacklog.hold(reply, options.deadline ?? Number.POSITIVE_INFINITY);
    if (!this.live) this.ensureStarted();
  }

  /** Replies the journal held when the orchestrator stopped (already durable): handed over once a child is ready. */
  resumeReplies(replies: readonly HeldReply[]): void {
    if (replies.length === 0) return;
    this.replyBacklog.restore(replies);
    if (!this.live) this.ensureStarted();
  }

  runtimeResult(result: ParentToChild["runtime_result"]): void {
    this.supervisor.child?.send("runtime_result", result);
  }

  /** Starts the child without an event (`agents__spawn`). */
  ensureStarted(): void {
    this.supervisor.ensureRunning();
  }

  /** Called by the pool once a slot is granted. */
  start(): void {
    this.clearIdleTimer();
    this.supervisor.grant();
  }

  /** Asks the child to finish its turn and exit; SIGKILL after the grace period. Resolves when it exited. */
  stop(options: { reason: string; gracePeriodMs: number }): Promise<void> {
    // A deliberate stop (reload, shutdown) gives the next start a fresh count.
    this.startFailures.reset();
    this.clearIdleTimer();
    return this.supervisor.stop(options);
  }

  /**
   * While draining: the running turn cannot finish (it waits for a request that will not run before the restart),
   * so its child aborts it now instead of at the end of the grace period; it stays uncommitted and is redelivered.
   */
  cutTurnShort(reason: string): void {
    if (this.status !== "draining" || !this.inFlight) return;
    this.logger.info({ eventId: this.inFlight.event.id, reason }, "draining turn cut short");
    this.supervisor.child?.send("shutdown", { gracePeriodMs: 0, reason });
  }

  /** No more starts or restarts (orchestrator shutdown, agent gone from the swarm). */
  close(): void {
    this.clearIdleTimer();
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
    this.clearIdleTimer();
    this.lastActiveAt = this.options.clock.now();
    child.send("event", { event: entry.event, attempt: entry.deliveries, ...(entry.lastCrash === undefined ? {} : { crashedBefore: entry.lastCrash }) });
    child.watchHeartbeat(this.options.policy().lifecycle.heartbeatTimeoutSeconds * 1000);
  }

  private enterIdle(): void {
    this.clearIdleTimer();
    const idleMs = this.options.policy().lifecycle.idleSeconds * 1000;
    this.idleTimer = this.options.clock.setTimeout(() => {
      this.idleTimer = undefined;
      if (this.status === "idle" && !this.hasWork()) void this.stop({ reason: "idle", gracePeriodMs: this.options.policy().shutdown.gracePeriodSeconds * 1000 });
    }, idleMs);
    this.options.pool.idled(this);
  }

  private clearIdleTimer(): void {
    if (this.idleTimer) this.options.clock.clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private onReady(child: ChildProcess): void {
    this.startFailures.reset();
    this.logger.info({ pid: child.pid, restarts: this.restarts }, "instance.ready");
    this.replyBacklog.release({ now: this.options.clock.now(), logger: this.logger, send: (reply) => child.send("delegate_result", reply) });
    this.deliverNext();
  }

  private onMessage(message: ChildMessage): void {
    const hooks = this.options.hooks;
    switch (message.type) {
      case "turn_started":
        this.lastActiveAt = this.options.clock.now();
        return;
      case "turn_result":
        this.onTurnResult(message.payload);
        return;
      case "turn_progress":
        hooks.turnProgress(this, message.payload);
        return;
      case "runtime_call":
        this.lastActiveAt = this.options.clock.now();
        hooks.runtimeCall(this, message.payload);
        return;
      case "results_waiting":
        hooks.resultsWaiting(this, message.payload as ChildToParent["results_waiting"]);
        return;
      case "fatal":
        this.logger.error({ code: message.payload.code, detail: message.payload.message }, "instance reported a fatal start-up error");
        this.startFailures.reportFatal(message.payload);
        return;
      default:
        return;
    }
  }

  private onTurnResult(result: TurnOutcome): void {
    const entry = this.events.finish(result.eventId);
    if (!entry) {
      this.logger.warn({ eventId: result.eventId }, "turn_result for an event not in flight; dropped");
      return;
    }
    this.supervisor.healthy();
    this.lastActiveAt = this.options.clock.now();
    this.supervisor.child?.unwatch();
    // Route the reply first; the `done` record after it (a lost one only means a redelivery, answered from the
    // agent's stored result).
    this.options.hooks.turnResult(this, entry, result);
    this.events.acknowledge(entry);
    this.deliverNext();
  }

  private onExited(ended: SupervisedExit): { givenUp: boolean } | void {
    const entry = this.events.takeInFlight();
    if (ended.how !== "crashed") {
      // A turn cut short by the grace period was never acknowledged: it stays in the inbox.
      if (entry) this.events.putBack(entry);
      return;
    }
    this.logger.warn({ eventId: entry?.event.id, why: ended.why }, "instance.crashed");
    if (entry && this.events.crashedWith(entry, this.options.policy().restart, ended.why)) this.options.hooks.poisoned(this, entry);
    if (!ended.beforeReady) return;
    // A child that never became ready (start-failures.ts): once the instance is given up on, its waiting events
    // are settled, and it backs off (crashLoopBackOff) and keeps trying, so a fix recovers it.
    const givenUp = this.startFailures.failed({ address: this.address, exit: ended.exit, ...(ended.cause ? { cause: ended.cause } : {}), policy: this.options.policy().restart });
    if (givenUp) this.giveUpWaiting();
    return { givenUp };
  }

  /** Settles every waiting event of an instance that cannot start (see `onExited`). */
  private giveUpWaiting(): void {
    const cause: ErrorInfo | undefined = this.startFailures.unstartable;
    if (!cause || this.live) return;
    for (const entry of this.events.giveUpWaiting()) this.options.hooks.poisoned(this, entry, cause);
  }
}
