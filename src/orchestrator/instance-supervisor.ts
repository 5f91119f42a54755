/**
 * The supervisor of one (agent, instanceKey): a small state machine over its child process. It asks the
 * pool for a slot when it has work, delivers inbox events one at a time, acknowledges them when their
 * turn_result arrives, redelivers after a crash (with an attempt count) and applies the restart policy
 * (`restart now` or `crashLoopBackOff`). Idle instances are stopped after `idleSeconds`. Replies for the
 * instance wait while it has no child and are delivered once it is ready again.
 */
import type { Clock, TimerHandle } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import { envelope, instanceAddress, ORCHESTRATOR, type ChildMessage, type ParentToChild, type TurnResultPayload } from "../ipc/protocol.ts";
import type { ChildExit, ChildProcessHandle } from "./process-spawner.ts";
import type { DurableInbox, InboxEntry } from "./durable-inbox.ts";
import { decideAfterCrash, isPoison } from "./restart-policy.ts";
import { ReplyBacklog } from "./reply-backlog.ts";
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
  /** Accepted events not yet delivered, FIFO. */
  readonly queue: InboxEntry[] = [];
  inFlight: InboxEntry | undefined;
  private child: ChildProcessHandle | undefined;
  private readonly replyBacklog = new ReplyBacklog();
  private slotRequested = false;
  private wantsProcess = false;
  private closed = false;
  private held = false;
  private timer: TimerHandle | undefined;
  private stopWaiters: (() => void)[] = [];
  /** Children in a row that exited before `ready` (reset by `ready` and by `stop`). */
  private failedStarts = 0;
  /** The current child's `fatal` report, if it sent one before exiting. */
  private fatal: { code: string; message: string } | undefined;
  /** Why the instance cannot start, once its waiting events were given up; cleared by `ready` or `stop`. */
  private unstartable: { code: string; message: string } | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: InstanceSupervisorOptions) {
    this.agent = options.agent;
    this.instanceKey = options.instanceKey;
    this.address = instanceAddress(options.agent, options.instanceKey);
    this.inbox = options.inbox;
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

  /** True while there is work that needs the child: queued or in-flight events. */
  hasWork(): boolean {
    return this.queue.length > 0 || this.inFlight !== undefined;
  }

  enqueue(entry: InboxEntry): void {
    this.queue.push(entry);
    this.lastActiveAt = this.options.clock.now();
    if (this.unstartable && !this.child) {
      // It cannot start: answer at once rather than at the deadline (after the caller registered its wait).
      queueMicrotask(() => this.giveUpWaiting());
      return;
    }
    this.kick();
  }

  /** Removes an accepted event that has not been delivered yet (its deadline passed). */
  withdraw(eventId: string): InboxEntry | undefined {
    const index = this.queue.findIndex((entry) => entry.event.id === eventId);
    if (index < 0) return undefined;
    const [entry] = this.queue.splice(index, 1);
    if (entry) this.inbox.remove(entry);
    return entry;
  }

  /** Delivers a reply to this instance now, or once its child is ready again (dropped if `deadline` passed by then). */
  deliverReply(reply: ParentToChild["delegate_result"], deadline = Number.POSITIVE_INFINITY): void {
    if (this.child && (this.status === "idle" || this.status === "processing")) {
      if (this.child.send(envelope("delegate_result", ORCHESTRATOR, this.address, reply))) return;
    }
    this.replyBacklog.hold(reply, deadline);
  }

  runtimeResult(result: ParentToChild["runtime_result"]): void {
    this.child?.send(envelope("runtime_result", ORCHESTRATOR, this.address, result));
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
    let child: ChildProcessHandle;
    try {
      child = this.options.spawner.spawn(this.options.spawnRequest());
    } catch (error) {
      // A spawn that fails outright (no bun binary, no memory) is a crash before ready.
      this.logger.error({ error: error instanceof Error ? error.message : String(error) }, "instance could not be spawned");
      this.options.hooks.released(this);
      const cause = { code: "E_AGENT_SPAWN_FAILED", message: error instanceof Error ? error.message : String(error) };
      queueMicrotask(() => this.failedStart({ code: null, signal: null, cause }));
      return;
    }
    this.child = child;
    this.fatal = undefined;
    this.pid = child.pid;
    this.status = "spawning";
    this.logger.debug({ pid: child.pid }, "instance.spawning");
    child.onMessage((message) => this.onMessage(child, message));
    child.onExit((exit) => this.onExit(child, exit));
    this.timer = this.options.clock.setTimeout(() => {
      this.logger.warn({ pid: child.pid }, "instance did not become ready in time; killing it");
      child.kill("SIGKILL");
    }, this.options.readyTimeoutMs ?? 30_000);
  }

  /** Asks the child to finish its turn and exit; SIGKILL after the grace period. Resolves when it exited. */
  stop(options: { reason: string; gracePeriodMs: number }): Promise<void> {
    this.wantsProcess = false;
    // A deliberate stop (reload, shutdown) gives the next start a fresh count.
    this.failedStarts = 0;
    this.unstartable = undefined;
    const child = this.child;
    if (!child) {
      this.clearTimer();
      if (this.status === "crashLoopBackOff" || this.status === "crashed") this.status = "terminated";
      return Promise.resolve();
    }
    const exited = new Promise<void>((resolve) => this.stopWaiters.push(resolve));
    if (this.status === "draining") return exited;
    this.clearTimer();
    if (this.status === "spawning") {
      child.kill("SIGKILL");
    } else {
      child.send(envelope("shutdown", ORCHESTRATOR, this.address, { gracePeriodMs: options.gracePeriodMs, reason: options.reason }));
      this.timer = this.options.clock.setTimeout(() => {
        this.logger.warn({ pid: child.pid, reason: options.reason }, "grace period over; killing the instance");
        child.kill("SIGKILL");
      }, options.gracePeriodMs);
    }
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
    const entry = this.queue.shift();
    if (!entry) {
      this.enterIdle();
      return;
    }
    this.clearTimer();
    this.inFlight = entry;
    entry.deliveries += 1;
    this.status = "processing";
    this.lastActiveAt = this.options.clock.now();
    child.send(envelope("event", ORCHESTRATOR, this.address, { event: entry.event, attempt: entry.deliveries }));
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

  private onMessage(child: ChildProcessHandle, message: ChildMessage): void {
    if (child !== this.child) return;
    switch (message.type) {
      case "ready": {
        if (this.status !== "spawning") return;
        this.clearTimer();
        this.startedAt = this.options.clock.now();
        this.status = "idle";
        this.wantsProcess = false;
        this.failedStarts = 0;
        this.unstartable = undefined;
        this.logger.info({ pid: child.pid, restarts: this.restarts }, "instance.ready");
        this.options.hooks.started(this);
        for (const reply of this.replyBacklog.release({ now: this.options.clock.now(), logger: this.logger })) child.send(envelope("delegate_result", ORCHESTRATOR, this.address, reply));
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
      case "shutdown_ack":
        this.logger.debug({ pid: child.pid }, "instance.shutdown_acked");
        return;
      case "fatal":
        this.logger.error({ pid: child.pid, code: message.payload.code, detail: message.payload.message }, "instance reported a fatal start-up error");
        this.fatal = { code: message.payload.code, message: message.payload.message };
        return;
    }
  }

  private onTurnResult(result: TurnResultPayload): void {
    const entry = this.inFlight;
    if (!entry || entry.event.id !== result.eventId) {
      this.logger.warn({ eventId: result.eventId }, "turn_result for an event not in flight; dropped");
      return;
    }
    this.inFlight = undefined;
    this.consecutiveCrashes = 0;
    this.lastActiveAt = this.options.clock.now();
    if (this.status === "processing") this.status = "idle";
    // Route the reply first; the `done` record after it (a lost one only means a redelivery, answered from the
    // agent's stored result).
    this.options.hooks.turnResult(this, entry, result);
    this.inbox.remove(entry);
    if (this.status === "idle") this.deliverNext();
  }

  private onExit(child: ChildProcessHandle, exit: ChildExit): void {
    if (child !== this.child) return;
    this.child = undefined;
    this.clearTimer();
    const intended = this.status === "draining";
    const beforeReady = this.status === "spawning";
    const entry = this.inFlight;
    this.inFlight = undefined;
    this.options.hooks.released(this);
    if (intended) {
      this.status = "terminated";
      // A turn cut short by the grace period was never acknowledged: it stays in the inbox.
      if (entry) this.queue.unshift(entry);
      this.logger.info({ pid: child.pid, code: exit.code, signal: exit.signal }, "instance.terminated");
      for (const resolve of this.stopWaiters.splice(0)) resolve();
      this.kick();
      return;
    }
    this.logger.warn({ pid: child.pid, code: exit.code, signal: exit.signal, consecutiveCrashes: this.consecutiveCrashes + 1, eventId: entry?.event.id }, "instance.crashed");
    for (const resolve of this.stopWaiters.splice(0)) resolve();
    if (beforeReady) this.failedStart({ code: exit.code, signal: exit.signal });
    else this.crashed(entry);
  }

  /**
   * A child that never became ready. Waiting events cannot be delivered, so after `maxConsecutiveCrashes`
   * such starts in a row, or at once when the child reported a configuration error (E_CONFIG_*: retrying
   * cannot help), every waiting event is given up as AGENT_CRASHED with the cause, and the instance backs
   * off (crashLoopBackOff) and keeps trying, so a fix (reload, restored file) recovers it.
   */
  private failedStart(exit: { code: number | null; signal: string | null; cause?: { code: string; message: string } }): void {
    this.failedStarts += 1;
    const cause = exit.cause ?? this.fatal ?? { code: "E_AGENT_START_FAILED", message: `the child exited (${exit.signal ?? `code ${exit.code}`}) before it was ready` };
    this.fatal = undefined;
    const configError = cause.code.startsWith("E_CONFIG_");
    if (!configError && this.failedStarts < Math.max(1, this.options.policy().restart.maxConsecutiveCrashes)) {
      this.crashed(undefined);
      return;
    }
    this.unstartable = { code: cause.code, message: `${this.address} could not start ${this.failedStarts} time(s) in a row: ${cause.code}: ${cause.message}` };
    this.giveUpWaiting();
    this.crashed(undefined, { backoff: true });
  }

  /** Settles every waiting event of an instance that cannot start (see `failedStart`). */
  private giveUpWaiting(): void {
    const cause = this.unstartable;
    if (!cause || this.child) return;
    for (const entry of this.queue.splice(0)) {
      this.inbox.remove(entry);
      this.options.hooks.poisoned(this, entry, cause);
    }
  }

  /** Crash accounting and the restart decision; `entry` is the event that was in flight, if any. */
  private crashed(entry: InboxEntry | undefined, options: { backoff?: boolean } = {}): void {
    this.restarts += 1;
    this.consecutiveCrashes += 1;
    this.status = "crashed";
    if (entry) {
      entry.crashes += 1;
      if (isPoison({ crashes: entry.crashes, policy: this.options.policy().restart })) {
        this.inbox.remove(entry);
        this.options.hooks.poisoned(this, entry);
      } else {
        this.inbox.update(entry);
        this.queue.unshift(entry);
      }
    }
    if (this.closed) return;
    const policy = this.options.policy().restart;
    // An instance given up on backs off at least the first step, never restarting in a tight loop.
    const crashes = options.backoff ? Math.max(this.consecutiveCrashes, policy.maxConsecutiveCrashes + 1) : this.consecutiveCrashes;
    const decision = decideAfterCrash({ consecutiveCrashes: crashes, policy });
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
