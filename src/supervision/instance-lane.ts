/**
 * One child living in a shared host process (process-host.ts), seen by its supervisor as a process of its own: the
 * same ChildProcessHandle, so the Supervisor, the ready deadline and the heartbeat watchdog are unchanged. Messages
 * go through the host's channel under the child's address. It ends when the host says `exited` for it, or with the
 * host process itself. A forced kill of a child with a turn in flight kills the host, and with it every child it held:
 * only the process's end stops that turn's tools for sure (dropped alone, a tool still running could go on beside the
 * event's redelivery). A child with no turn in flight (or not ready yet: an event handed to it early has not begun)
 * is dropped alone (`kill`), unless the host does not answer
 * within `killGraceMs` (its event loop blocked): then the host is killed.
 */
import type { Clock, TimerHandle } from "../shared/clock.ts";
import { envelope, ORCHESTRATOR, type ChildMessage, type ParentMessage } from "../protocol/ipc-messages.ts";
import type { ChildExit, ChildProcessHandle } from "./process-spawner.ts";

/** What a lane uses of its host. */
export interface LaneHost {
  readonly pid: number;
  send(message: ParentMessage): boolean;
  kill(signal: "SIGTERM" | "SIGKILL"): void;
  laneEnded(lane: InstanceLane): void;
}

export class InstanceLane implements ChildProcessHandle {
  private readonly messageListeners: ((message: ChildMessage) => void)[] = [];
  private readonly exitListeners: ((exit: ChildExit) => void)[] = [];
  private ending: ChildExit | undefined;
  private killTimer: TimerHandle | undefined;
  /** An event was delivered and its `turn_result` has not come back. */
  private turnInFlight = false;
  /** It said `ready`: an event delivered before that waits in it, no turn begun (its kill drops it alone). */
  private ready = false;

  constructor(
    readonly address: string,
    private readonly host: LaneHost,
    private readonly options: { clock: Clock; killGraceMs: number },
  ) {}

  get pid(): number {
    return this.host.pid;
  }

  send(message: ParentMessage): boolean {
    if (this.ending !== undefined || !this.host.send(message)) return false;
    if (message.type === "event") this.turnInFlight = true;
    return true;
  }

  onMessage(listener: (message: ChildMessage) => void): void {
    this.messageListeners.push(listener);
  }

  onExit(listener: (exit: ChildExit) => void): void {
    if (this.ending) listener(this.ending);
    else this.exitListeners.push(listener);
  }

  /** SIGTERM is a graceful stop already asked for with `shutdown` (nothing more to do); SIGKILL ends the child now. */
  kill(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): void {
    if (this.ending !== undefined || signal !== "SIGKILL" || this.killTimer !== undefined) return;
    if (this.turnInFlight && this.ready) return this.host.kill("SIGKILL");
    const asked = this.host.send(
      envelope("kill", ORCHESTRATOR, this.address, { reason: "killed by the orchestrator" }),
    );
    if (!asked) return this.host.kill("SIGKILL");
    this.killTimer = this.options.clock.setTimeout(() => this.host.kill("SIGKILL"), this.options.killGraceMs);
  }

  /** A message the host relayed from this child. */
  deliver(message: ChildMessage): void {
    if (this.ending !== undefined) return;
    if (message.type === "turn_result") this.turnInFlight = false;
    else if (message.type === "ready") this.ready = true;
    for (const listener of this.messageListeners) listener(message);
  }

  /** The child is gone (the host said `exited`, or the host process ended). */
  end(exit: ChildExit): void {
    if (this.ending !== undefined) return;
    this.ending = exit;
    if (this.killTimer !== undefined) this.options.clock.clearTimeout(this.killTimer);
    this.killTimer = undefined;
    this.host.laneEnded(this);
    for (const listener of this.exitListeners.splice(0)) listener(exit);
  }
}
