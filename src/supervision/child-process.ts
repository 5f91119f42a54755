/**
 * One supervised child process (an agent instance or a connector) as its supervisor talks to it: messages sent
 * from the orchestrator to the child's address, and its kill deadline — not ready within the ready timeout, or
 * still alive when the grace period of a requested shutdown is over — after which it gets SIGKILL (and the
 * supervisor sees its exit). A watchdog can also kill a child that has said nothing (not even a `heartbeat`) for a
 * while: its event loop is blocked. The supervisor's own timers (backoff, stability) live in the supervisor.
 */
import type { Clock, TimerHandle } from "../shared/clock.ts";
import { describe } from "../shared/errors.ts";
import type { ErrorInfo } from "../protocol/error-info.ts";
import type { Logger } from "../shared/logger.ts";
import { envelope, ORCHESTRATOR, type ChildMessage, type ParentToChild } from "../protocol/ipc-messages.ts";
import type { ChildExit, ChildProcessHandle, ProcessSpawner, SpawnRequest } from "./process-spawner.ts";

export interface SpawnChildOptions {
  spawner: ProcessSpawner;
  request: SpawnRequest;
  address: string;
  clock: Clock;
  logger: Logger;
  /** SIGKILL unless ready within this many ms; undefined: no deadline. */
  readyTimeoutMs: number | undefined;
  onMessage: (child: ChildProcess, message: ChildMessage) => void;
  onExit: (child: ChildProcess, exit: ChildExit) => void;
}

/** Spawns the child with its ready deadline running, or says why it could not be spawned (no binary, no memory). */
export function spawnChild(options: SpawnChildOptions): { child: ChildProcess } | { error: ErrorInfo } {
  let handle: ChildProcessHandle;
  try {
    handle = options.spawner.spawn(options.request);
  } catch (error) {
    // A spawner's own coded refusal (E_AGENT_SANDBOX_UNAVAILABLE) keeps its code.
    const { code, message } = describe(error);
    return { error: { code: code?.startsWith("E_") === true ? code : "E_SPAWN_FAILED", message } };
  }
  const child = new ChildProcess(handle, options);
  handle.onMessage((message) => {
    child.heard();
    options.onMessage(child, message);
  });
  handle.onExit((exit) => options.onExit(child, exit));
  if (options.readyTimeoutMs !== undefined) child.killUnlessReadyWithin(options.readyTimeoutMs);
  return { child };
}

export class ChildProcess {
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
    this.killAfter(ms, "child did not become ready in time; killing it", {});
  }

  /** Asks the child to finish its work and exit (SIGTERM when the channel is gone); SIGKILL once the grace period is over. */
  shutdown(options: { reason: string; gracePeriodMs: number }): void {
    if (!this.send("shutdown", { gracePeriodMs: options.gracePeriodMs, reason: options.reason }))
      this.handle.kill("SIGTERM");
    this.killAfter(options.gracePeriodMs, "grace period over; killing the child", { reason: options.reason });
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
      this.options.logger.error(
        { pid: this.handle.pid, silentMs },
        "child unresponsive: no heartbeat during its work; killing it",
      );
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
