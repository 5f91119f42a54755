/**
 * The supervisor of one (agent, instanceKey): a small state machine over its child process. It asks the
 * pool for a slot when it has work, delivers inbox events one at a time, acknowledges them when their
 * turn_result arrives, redelivers after a crash (with an attempt count) and applies the restart policy
 * (`restart now` or `crashLoopBackOff`). Idle instances are stopped after `idleSeconds`. A reply for an
 * instance without a child starts one and is delivered once it is ready. A child that stops on its own
 * after a graceful shutdown (SIGTERM from outside: it says `shutdown_ack`, then exits) is no crash and is not
 * respawned — most likely the whole process group is shutting down; the next work starts it again.
 */
import type { TimerHandle } from "../../shared/clock.ts";
import type { Logger } from "../../shared/logger.ts";
import { instanceAddress } from "../../protocol/agent-event.ts";
import type { ChildMessage, ParentToChild } from "../../protocol/ipc-messages.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import { spawnInstanceChild, type InstanceChild } from "../../supervision/child-process.ts";
import type { ChildExit } from "../../supervision/process-spawner.ts";
import type { DurableInbox, HeldReply, InboxEntry } from "./durable-inbox.ts";
import { decideAfterCrash } from "../../supervision/restart-policy.ts";
import { InstanceQueue } from "./instance-queue.ts";
import { ReplyBacklog } from "./reply-backlog.ts";
import { StartFailures, type StartFailureCause } from "../../supervision/start-failures.ts";
import type { InstanceStatus, InstanceSupervisorOptions } from "./instance-supervisor-options.ts";

export type { InstanceStatus, InstanceSupervisorOptions, SupervisorHooks } from "./instance-supervisor-options.ts";

export class InstanceSupervisor {
  readonly agent: string;
  readonly instanceKey: string;
  readonly address: string;
  readonly inbox: DurableInbox;
  status: InstanceStatus = "terminated";
  pid: number | undefined;
  restarts = 0;
  consecutiveCrashes = 0;
  startedAt: number | undefined;
  lastActiveAt: number;
  private readonly events: InstanceQueue;
  private child: InstanceChild | undefined;
  private readonly replyBacklog: ReplyBacklog;
  private slotRequested = false;
  private wantsProcess = false;
  private closed = false;
  private held = false;
  /** The current child said `shutdown_ack` without being asked to stop: it is leaving on its own. */
  private leaving = false;
  private timer: TimerHandle | undefined;
  private stopWaiters: (() => void)[] = [];
  private readonly startFailures = new StartFailures();
  private readonly logger: Logger;

  constructor(private readonly options: InstanceSupervisorOptions) {
    this.agent = options.agent;
    this.instanceKey = options.instanceKey;
    this.address = instanceAddress(options.agent, options.instanceKey);
    this.inbox = options.inbox;
    this.events = new InstanceQueue(options.inbox);
    this.replyBacklog = new ReplyBacklog(options.inbox, options);
    this.lastActiveAt = options.clock.now();
    this.logger = options.logger.child({ agent: options.agent, instanceKey: options.instanceKey });
  }

  get live(): boolean {
    return this.child !== undefined;
  }

  /** True while it has asked the pool for a process slot and not been granted one (maxProcesses reached). */
  get awaitingSlot(): boolean {
    return this.slotRequested && !this.child;
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
    if (this.startFailures.unstartable && !this.child) {
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
   * then). An instance without a child is started for it: the reply to an async request wakes it.
   */
  deliverReply(reply: ParentToChild["delegate_result"], deadline = Number.POSITIVE_INFINITY): void {
    if (this.child && (this.status === "idle" || this.status === "processing")) {
      if (this.child.send("delegate_result", reply)) return;
    }
    this.replyBacklog.hold(reply, deadline);
    if (!this.child) this.ensureStarted();
  }

  /** Replies the journal held when the orchestrator stopped (already durable): handed over once a child is ready. */
  resumeReplies(replies: readonly HeldReply[]): void {
    if (replies.length === 0) return;
    this.replyBacklog.restore(replies);
    if (!this.child) this.ensureStarted();
  }

  runtimeResult(result: ParentToChild["runtime_result"]): void {
    this.child?.send("runtime_result", result);
  }

  /** Starts the child without an event (`agents__spawn`). */
  ensureStarted(): void {
    this.wantsProcess = true;
    this.kick();
  }

  /** Called by the pool once a slot is granted. */
  start(): void {
    this.slotRequested = false;
    if (this.child || this.closed) {
      if (this.closed) this.options.hooks.released(this);
      return;
    }
    this.clearTimer();
    const { spawner, clock, readyTimeoutMs = 30_000 } = this.options;
    const onMessage = this.onMessage.bind(this);
    const spawned = spawnInstanceChild({ spawner, request: this.options.spawnRequest(), address: this.address, clock, logger: this.logger, readyTimeoutMs, onMessage, onExit: this.onExit.bind(this) });
    if ("error" in spawned) {
      // A spawn that fails outright is a failed start.
      this.logger.error({ error: spawned.error.message }, "instance could not be spawned");
      this.options.hooks.released(this);
      queueMicrotask(() => this.failedStart({ code: null, signal: null, cause: spawned.error }));
      return;
    }
    this.child = spawned.child;
    this.leaving = false;
    this.startFailures.spawned();
    this.pid = spawned.child.pid;
    this.status = "spawning";
    this.logger.debug({ pid: this.pid }, "instance.spawning");
  }

  /** Asks the child to finish its turn and exit; SIGKILL after the grace period. Resolves when it exited. */
  stop(options: { reason: string; gracePeriodMs: number }): Promise<void> {
    this.wantsProcess = false;
    // A deliberate stop (reload, shutdown) gives the next start a fresh count.
    this.startFailures.reset();
    const child = this.child;
    if (!child) {
      this.clearTimer();
      if (this.status === "crashLoopBackOff" || this.status === "crashed") this.status = "terminated";
      return Promise.resolve();
    }
    const exited = new Promise<void>((resolve) => this.stopWaiters.push(resolve));
    if (this.status === "draining") return exited;
    this.clearTimer();
    if (this.status === "spawning") child.kill();
    else child.shutdown(options);
    this.status = "draining";
    this.logger.debug({ pid: child.pid, reason: options.reason }, "instance.draining");
    return exited;
  }

  /** No more starts or restarts (orchestrator shutdown, agent gone from the swarm). */
  close(): void {
    this.closed = true;
    if (!this.child) this.clearTimer();
  }

  /** Holds new starts (a reload replacing the child) until `resume`. */
  hold(): void {
    this.held = true;
  }

  resume(): void {
    this.held = false;
    this.kick();
  }

  private kick(): void {
    if (this.closed || this.held) return;
    if (!this.child) {
      if (this.status === "crashLoopBackOff" || this.slotRequested) return;
      if (this.hasWork() || this.wantsProcess) {
        this.slotRequested = true;
        this.options.hooks.requestStart(this);
      }
      return;
    }
    if (this.status === "idle") this.deliverNext();
  }

  private deliverNext(): void {
    const child = this.child;
    if (!child || this.status !== "idle" || this.inFlight) return;
    const entry = this.events.deliverNext();
    if (!entry) {
      this.enterIdle();
      return;
    }
    this.clearTimer();
    this.status = "processing";
    this.lastActiveAt = this.options.clock.now();
    child.send("event", { event: entry.event, attempt: entry.deliveries, ...(entry.lastCrash === undefined ? {} : { crashedBefore: entry.lastCrash }) });
    child.watchHeartbeat(this.options.policy().lifecycle.heartbeatTimeoutSeconds * 1000);
  }

  private enterIdle(): void {
    this.status = "idle";
    this.clearTimer();
    const idleMs = this.options.policy().lifecycle.idleSeconds * 1000;
    this.timer = this.options.clock.setTimeout(() => {
      if (this.status === "idle" && !this.hasWork()) void this.stop({ reason: "idle", gracePeriodMs: this.gracePeriodMs() });
    }, idleMs);
    this.options.hooks.idled(this);
  }

  private gracePeriodMs(): number {
    return this.options.policy().shutdown.gracePeriodSeconds * 1000;
  }

  private onMessage(child: InstanceChild, message: ChildMessage): void {
    if (child !== this.child) return;
    switch (message.type) {
      case "ready": {
        if (this.status !== "spawning") return;
        child.clearDeadline();
        this.startedAt = this.options.clock.now();
        this.status = "idle";
        this.wantsProcess = false;
        this.startFailures.reset();
        this.logger.info({ pid: child.pid, restarts: this.restarts }, "instance.ready");
        this.options.hooks.started(this);
        this.replyBacklog.release({ now: this.options.clock.now(), logger: this.logger, send: (reply) => child.send("delegate_result", reply) });
        this.deliverNext();
        return;
      }
      case "turn_started":
        this.lastActiveAt = this.options.clock.now();
        return;
      case "turn_result":
        this.onTurnResult(message.payload);
        return;
      case "runtime_call":
        this.lastActiveAt = this.options.clock.now();
        this.options.hooks.runtimeCall(this, message.payload);
        return;
      case "results_waiting":
        this.options.hooks.resultsWaiting(this, message.payload);
        return;
      case "shutdown_ack":
        if (this.status !== "draining") this.leaving = true;
        this.logger.debug({ pid: child.pid, reason: message.payload.reason }, "instance.shutdown_acked");
        return;
      case "fatal":
        this.logger.error({ pid: child.pid, code: message.payload.code, detail: message.payload.message }, "instance reported a fatal start-up error");
        this.startFailures.reportFatal({ code: message.payload.code, message: message.payload.message });
        return;
    }
  }

  private onTurnResult(result: TurnOutcome): void {
    const entry = this.events.finish(result.eventId);
    if (!entry) {
      this.logger.warn({ eventId: result.eventId }, "turn_result for an event not in flight; dropped");
      return;
    }
    this.consecutiveCrashes = 0;
    this.lastActiveAt = this.options.clock.now();
    this.child?.unwatch();
    if (this.status === "processing") this.status = "idle";
    // Route the reply first; the `done` record after it (a lost one only means a redelivery, answered from the
    // agent's stored result).
    this.options.hooks.turnResult(this, entry, result);
    this.events.acknowledge(entry);
    if (this.status === "idle") this.deliverNext();
  }

  private onExit(child: InstanceChild, exit: ChildExit): void {
    if (child !== this.child) return;
    this.child = undefined;
    child.clearDeadline();
    child.unwatch();
    this.clearTimer();
    const leftOnItsOwn = this.leaving && this.status !== "draining";
    const intended = this.status === "draining" || leftOnItsOwn;
    this.leaving = false;
    const beforeReady = this.status === "spawning";
    const entry = this.events.takeInFlight();
    this.options.hooks.released(this);
    if (intended) {
      this.status = "terminated";
      // A turn cut short by the grace period was never acknowledged: it stays in the inbox.
      if (entry) this.events.putBack(entry);
      this.logger.info({ pid: child.pid, code: exit.code, signal: exit.signal }, "instance.terminated");
      for (const resolve of this.stopWaiters.splice(0)) resolve();
      if (leftOnItsOwn) {
        // Stopped from outside (SIGTERM): no respawn now; the next event or start request starts it again.
        this.wantsProcess = false;
        this.logger.info({ pid: child.pid }, "instance stopped on its own after a stop signal; not restarted until new work arrives");
        return;
      }
      this.kick();
      return;
    }
    const why = child.describeExit(exit);
    this.logger.warn({ pid: child.pid, code: exit.code, signal: exit.signal, consecutiveCrashes: this.consecutiveCrashes + 1, eventId: entry?.event.id, why }, "instance.crashed");
    for (const resolve of this.stopWaiters.splice(0)) resolve();
    if (beforeReady) this.failedStart({ code: exit.code, signal: exit.signal });
    else this.crashed(entry, { why });
  }

  /**
   * A child that never became ready (start-failures.ts): once the instance is given up on, its waiting
   * events are settled, and it backs off (crashLoopBackOff) and keeps trying, so a fix recovers it.
   */
  private failedStart(exit: { code: number | null; signal: string | null; cause?: StartFailureCause }): void {
    const givenUp = this.startFailures.failed({ address: this.address, exit, ...(exit.cause ? { cause: exit.cause } : {}), policy: this.options.policy().restart });
    if (givenUp) this.giveUpWaiting();
    this.crashed(undefined, { givenUp });
  }

  /** Settles every waiting event of an instance that cannot start (see `failedStart`). */
  private giveUpWaiting(): void {
    const cause = this.startFailures.unstartable;
    if (!cause || this.child) return;
    for (const entry of this.events.giveUpWaiting()) this.options.hooks.poisoned(this, entry, cause);
  }

  /** Crash accounting and the restart decision; `entry` is the event that was in flight, if any. */
  private crashed(entry: InboxEntry | undefined, options: { givenUp?: boolean; why?: string } = {}): void {
    this.restarts += 1;
    this.consecutiveCrashes += 1;
    this.status = "crashed";
    if (entry && this.events.crashedWith(entry, this.options.policy().restart, options.why ?? "it crashed")) this.options.hooks.poisoned(this, entry);
    if (this.closed) return;
    const decision = decideAfterCrash({ consecutiveCrashes: this.consecutiveCrashes, policy: this.options.policy().restart, givenUp: options.givenUp === true });
    this.wantsProcess = true;
    if (decision.action === "restart") {
      this.kick();
      return;
    }
    this.status = "crashLoopBackOff";
    this.logger.warn({ delayMs: decision.delayMs, consecutiveCrashes: this.consecutiveCrashes }, "instance.crashLoopBackOff");
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      this.status = "crashed";
      this.kick();
    }, decision.delayMs);
  }

  private clearTimer(): void {
    if (this.timer) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
