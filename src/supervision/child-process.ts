/**
 * One child process of an instance as its supervisor talks to it: messages sent from the orchestrator to
 * the instance's address, and the child's kill deadline — no `ready` within the ready timeout, or still
 * alive when the grace period of a requested shutdown is over — after which it gets SIGKILL (and the
 * supervisor sees its exit). While a turn runs, a watchdog also kills a child that has said nothing (not
 * even its `heartbeat`) for the heartbeat timeout: its event loop is blocked. The supervisor's own timers
 * (idle reaping, backoff) live in the supervisor.
 */
import type { Clock, TimerHandle } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import { envelope, ORCHESTRATOR, type ChildMessage, type ParentToChild } from "../protocol/ipc-messages.ts";
import type { ChildExit, ChildProcessHandle, ProcessSpawner, SpawnRequest } from "./process-spawner.ts";

export interface SpawnChildOptions {
  spawner: ProcessSpawner;
  request: SpawnRequest;
  address: string;
  clock: Clock;
  logger: Logger;
  readyTimeoutMs: number;
  onMessage: (child: InstanceChild, message: ChildMessage) => void;
  onExit: (child: InstanceChild, exit: ChildExit) => void;
}

/** Spawns the child with its ready deadline running, or says why it could not be spawned (no binary, no memory). */
export function spawnInstanceChild(options: SpawnChildOptions): { child: InstanceChild } | { error: { code: string; message: string } } {
  let handle: ChildProcessHandle;
  try {
    handle = options.spawner.spawn(options.request);
  } catch (error) {
    return { error: { code: "E_AGENT_SPAWN_FAILED", message: error instanceof Error ? error.message : String(error) } };
  }
  const child = new InstanceChild(handle, options);
  handle.onMessage((message) => {
    child.heard();
    options.onMessage(child, message);
  });
  handle.onExit((exit) => options.onExit(child, exit));
  child.killUnlessReadyWithin(options.readyTimeoutMs);
  return { child };
}

export class InstanceChild {
  private deadline: TimerHandle | undefined;
  private watchdog: TimerHandle | undefined;
  private lastHeardAt: number;
  /** Why the orchestrator killed it, when it did (for the crash log). */
  private killedBecause: string | undefined;

  constructor(
    readonly handle: ChildProcessHandle,
    private readonly options: { address: string; clock: Clock; logger: Logger },
  ) {
    this.lastHeardAt = options.clock.now();
  }

  get pid(): number {
    return this.handle.pid;
  }

  /** False when the channel is already closed. */
  send<K extends keyof ParentToChild>(type: K, payload: ParentToChild[K]): boolean {
    return this.handle.send(envelope(type, ORCHESTRATOR, this.options.address, payload) as never);
  }

  /** SIGKILL unless `clearDeadline` (it sent `ready`) comes within `ms`. */
  killUnlessReadyWithin(ms: number): void {
    this.killAfter(ms, "instance did not become ready in time; killing it", {});
  }

  /** Asks the child to finish its turn and exit; SIGKILL once the grace period is over. */
  shutdown(options: { reason: string; gracePeriodMs: number }): void {
    this.send("shutdown", { gracePeriodMs: options.gracePeriodMs, reason: options.reason });
    this.killAfter(options.gracePeriodMs, "grace period over; killing the instance", { reason: options.reason });
  }

  kill(): void {
    this.clearDeadline();
    this.handle.kill("SIGKILL");
  }

  /** Any message from the child: it is alive. */
  heard(): void {
    this.lastHeardAt = this.options.clock.now();
  }

  /** SIGKILL once the child has said nothing for `timeoutMs`, until `unwatch` (the turn ended, or it exited). */
  watchHeartbeat(timeoutMs: number): void {
    this.unwatch();
    this.heard();
    const { clock } = this.options;
    const check = (): void => {
      const silentMs = clock.now() - this.lastHeardAt;
      if (silentMs < timeoutMs) {
        this.watchdog = clock.setTimeout(check, timeoutMs - silentMs);
        return;
      }
      this.watchdog = undefined;
      this.killedBecause = `it was killed after ${Math.round(silentMs / 1000)} s without a heartbeat during a turn (its event loop was blocked)`;
      this.options.logger.error({ pid: this.handle.pid, silentMs }, "instance unresponsive: no heartbeat during its turn; killing it");
      this.handle.kill("SIGKILL");
    };
    this.watchdog = clock.setTimeout(check, timeoutMs);
  }

  /** How it ended, for the crash log and the next delivery: why it was killed, or its signal or exit code. */
  describeExit(exit: ChildExit): string {
    if (this.killedBecause !== undefined) return this.killedBecause;
    return exit.signal === null ? `it exited with code ${exit.code}` : `it was killed by ${exit.signal}`;
  }

  unwatch(): void {
    if (this.watchdog) this.options.clock.clearTimeout(this.watchdog);
    this.watchdog = undefined;
  }

  clearDeadline(): void {
    if (this.deadline) this.options.clock.clearTimeout(this.deadline);
    this.deadline = undefined;
  }

  private killAfter(ms: number, why: string, context: Record<string, string>): void {
    this.clearDeadline();
    this.deadline = this.options.clock.setTimeout(() => {
      this.deadline = undefined;
      this.options.logger.warn({ pid: this.handle.pid, ...context }, why);
      this.handle.kill("SIGKILL");
    }, ms);
  }
}
