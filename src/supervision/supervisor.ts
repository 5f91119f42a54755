/**
 * The one supervisor of a child process, for agent instances and connectors alike (OTP's supervisor as data: a
 * child spec, a restart policy, "ask, wait, then kill"). It starts the child when its owner wants one (through
 * an optional slot gate: the process pool), waits for the spec's ready message within the ready deadline,
 * classifies every exit — stopped (asked to), left (it said `shutdown_ack` unasked, e.g. a SIGTERM from outside:
 * not started again until the owner asks), or crashed — and after a crash restarts at once up to
 * `maxConsecutiveCrashes`, then backs off (`crashLoopBackOff`). The crash count resets when the owner reports
 * progress (`healthy()`: an agent's completed turn) or, when the spec says so, once a child stayed up for
 * `stableAfterMs`. What a child's messages mean is the owner's business (hooks, in child-spec.ts with the spec).
 */
import type { Clock, TimerHandle } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { ChildMessage, ParentToChild } from "../protocol/ipc-messages.ts";
import { spawnChild, type ChildProcess } from "./child-process.ts";
import type { ChildSpec, StartGate, SupervisedExit, SupervisorHooks, SupervisorStatus } from "./child-spec.ts";
import type { ChildExit, ProcessSpawner } from "./process-spawner.ts";
import { decideAfterCrash, type RestartPolicy } from "./restart-policy.ts";

export interface SupervisorOptions {
  spec: ChildSpec;
  spawner: ProcessSpawner;
  clock: Clock;
  logger: Logger;
  /** Read on every decision, so a reload's policy applies without a restart. */
  policy: () => RestartPolicy;
  hooks: SupervisorHooks;
  /** Default: none, a child starts as soon as it is wanted. */
  gate?: StartGate;
}

export class Supervisor {
  status: SupervisorStatus = "terminated";
  restarts = 0;
  consecutiveCrashes = 0;
  /** When the current child became ready. */
  startedAt: number | undefined;
  private current: ChildProcess | undefined;
  private want = false;
  private slotRequested = false;
  private closed = false;
  private held = false;
  private leaving = false;
  private timer: TimerHandle | undefined;
  private stableTimer: TimerHandle | undefined;
  private stopWaiters: (() => void)[] = [];

  constructor(private readonly options: SupervisorOptions) {}

  get child(): ChildProcess | undefined {
    return this.current;
  }

  get pid(): number | undefined {
    return this.current?.pid;
  }

  /** True while it has asked the gate for a slot and not been granted one. */
  get awaitingSlot(): boolean {
    return this.slotRequested && !this.current;
  }

  /** Sends to the child when it is running; false otherwise or when the channel is closed. */
  send<K extends keyof ParentToChild>(type: K, payload: ParentToChild[K]): boolean {
    return this.status === "running" && this.current !== undefined && this.current.send(type, payload);
  }

  /** Starts a child even without work (`agents__spawn`, a connector). */
  ensureRunning(): void {
    this.want = true;
    this.kick();
  }

  /** The owner's demand may have changed (new work): start a child if one is wanted and none runs. */
  kick(): void {
    if (this.closed || this.held || this.current || this.status === "crashLoopBackOff" || this.slotRequested) return;
    if (!this.want && !this.options.hooks.wanted()) return;
    if (this.options.gate) {
      this.slotRequested = true;
      this.options.gate.request();
      return;
    }
    this.grant();
  }

  /** A slot is free (or no gate): spawn the child. */
  grant(): void {
    this.slotRequested = false;
    if (this.current || this.closed) {
      if (this.closed) this.options.gate?.released();
      return;
    }
    this.clearTimer();
    const { spec, spawner, clock, logger } = this.options;
    const spawned = spawnChild({
      spawner,
      request: spec.spawnRequest(),
      address: spec.address,
      clock,
      logger,
      readyTimeoutMs: spec.readyTimeoutMs,
      onMessage: this.onMessage.bind(this),
      onExit: this.onExit.bind(this),
    });
    if ("error" in spawned) {
      logger.error({ error: spawned.error.message }, "child could not be spawned");
      this.options.gate?.released();
      queueMicrotask(() =>
        this.crashed({
          child: undefined,
          exit: { code: null, signal: null },
          how: "crashed",
          beforeReady: true,
          why: spawned.error.message,
          cause: spawned.error,
        }),
      );
      return;
    }
    this.current = spawned.child;
    this.leaving = false;
    this.status = "spawning";
    logger.debug({ pid: spawned.child.pid }, "child.spawning");
    this.options.hooks.spawned?.(spawned.child);
  }

  /** Asks the child to finish and exit; SIGKILL after the grace period. Resolves when it exited. */
  stop(options: { reason: string; gracePeriodMs: number }): Promise<void> {
    this.want = false;
    const child = this.current;
    if (!child) {
      this.clearTimer();
      if (this.status === "crashLoopBackOff" || this.status === "crashed") this.status = "terminated";
      return Promise.resolve();
    }
    const exited = new Promise<void>((resolve) => this.stopWaiters.push(resolve));
    if (this.status === "draining") return exited;
    this.clearTimer();
    child.shutdown(options);
    this.status = "draining";
    this.options.logger.debug({ pid: child.pid, reason: options.reason }, "child.draining");
    return exited;
  }

  /** No more starts or restarts (shutdown, the owner is gone from the config). */
  close(): void {
    this.closed = true;
    if (!this.current) this.clearTimer();
  }

  /** Holds new starts (a reload replacing the child) until `resume`. */
  hold(): void {
    this.held = true;
  }

  resume(): void {
    this.held = false;
    this.kick();
  }

  /** The child made progress (an agent's turn completed): the crash count starts afresh. */
  healthy(): void {
    this.consecutiveCrashes = 0;
  }

  private onMessage(child: ChildProcess, message: ChildMessage): void {
    if (child !== this.current) return;
    if (message.type === this.options.spec.readyMessage) {
      if (this.status !== "spawning") return;
      child.clearDeadline();
      this.startedAt = this.options.clock.now();
      this.status = "running";
      this.want = false;
      this.watchStability();
      this.options.gate?.started();
      this.options.hooks.ready(child);
      return;
    }
    if (message.type === "shutdown_ack" && this.status !== "draining") this.leaving = true;
    this.options.hooks.message(child, message);
  }

  private onExit(child: ChildProcess, exit: ChildExit): void {
    if (child !== this.current) return;
    this.current = undefined;
    child.clearDeadline();
    child.unwatch();
    this.clearTimer();
    this.clearStableTimer();
    const how = this.status === "draining" ? "stopped" : this.leaving ? "left" : "crashed";
    const beforeReady = this.status === "spawning";
    this.leaving = false;
    this.options.gate?.released();
    const ended: SupervisedExit = { child, exit, how, beforeReady, why: child.describeExit(exit) };
    if (how === "crashed") {
      this.options.logger.warn(
        {
          pid: child.pid,
          code: exit.code,
          signal: exit.signal,
          consecutiveCrashes: this.consecutiveCrashes + 1,
          why: ended.why,
        },
        "child.crashed",
      );
      for (const resolve of this.stopWaiters.splice(0)) resolve();
      this.crashed(ended);
      return;
    }
    this.status = "terminated";
    this.options.logger.info(
      { pid: child.pid, code: exit.code, signal: exit.signal },
      how === "left"
        ? "child stopped on its own after a stop signal; not restarted until there is work"
        : "child.terminated",
    );
    for (const resolve of this.stopWaiters.splice(0)) resolve();
    if (how === "left") this.want = false;
    this.options.hooks.exited(ended);
    // Left on its own: most likely its whole process group is stopping; the owner decides when to start again.
    if (how === "stopped") this.kick();
  }

  /** Crash accounting and the restart decision: restart now, or back off. */
  private crashed(ended: SupervisedExit): void {
    const verdict = this.options.hooks.exited(ended);
    this.restarts += 1;
    this.consecutiveCrashes += 1;
    this.status = "crashed";
    if (this.closed) return;
    const decision = decideAfterCrash({
      consecutiveCrashes: this.consecutiveCrashes,
      policy: this.options.policy(),
      givenUp: verdict?.givenUp === true,
      ...(verdict?.storeFaults === undefined ? {} : { storeFaults: verdict.storeFaults }),
    });
    this.want = true;
    if (decision.action === "restart") {
      this.kick();
      return;
    }
    this.status = "crashLoopBackOff";
    this.options.logger.warn(
      { delayMs: decision.delayMs, consecutiveCrashes: this.consecutiveCrashes },
      "child.crashLoopBackOff",
    );
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      this.status = "crashed";
      this.kick();
    }, decision.delayMs);
  }

  private watchStability(): void {
    const { stableAfterMs } = this.options.spec;
    if (stableAfterMs === undefined) return;
    this.stableTimer = this.options.clock.setTimeout(() => {
      this.stableTimer = undefined;
      this.consecutiveCrashes = 0;
    }, stableAfterMs);
  }

  private clearTimer(): void {
    if (this.timer) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private clearStableTimer(): void {
    if (this.stableTimer) this.options.clock.clearTimeout(this.stableTimer);
    this.stableTimer = undefined;
  }
}
