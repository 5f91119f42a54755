/**
 * One shared host process as the orchestrator holds it: the real child (spawned like any other), the lanes of the
 * children it holds (instance-lane.ts), and its end. It relays each message to the lane of its `from` address, and
 * an `exited` ends that lane. When its last lane ends it waits `idleMs` for a new one, then is asked to exit
 * (SIGTERM); a retired host (its group was replaced by a reload) exits as soon as it is empty. When the process
 * ends, every lane it still held ends with the process's exit, so each supervisor sees its child crash.
 */
import type { Clock, TimerHandle } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import { envelope, ORCHESTRATOR, type ParentMessage } from "../protocol/ipc-messages.ts";
import { InstanceLane, type LaneHost } from "./instance-lane.ts";
import type { ChildExit, ChildProcessHandle, SpawnRequest } from "./process-spawner.ts";

export interface ProcessHostOptions {
  group: string;
  label: string;
  clock: Clock;
  logger: Logger;
  /** How long an empty host waits for a new child before it is asked to exit (each placement may update it). */
  idleMs: number;
  /** How long a lane's forced kill waits for the host before the host is killed. */
  killGraceMs: number;
  /** The process ended: forget the host. */
  gone: (host: ProcessHost) => void;
}

export class ProcessHost implements LaneHost {
  readonly lanes = new Map<string, InstanceLane>();
  private exit: ChildExit | undefined;
  private retired = false;
  private idleTimer: TimerHandle | undefined;
  private idleMs: number;

  constructor(
    readonly handle: ChildProcessHandle,
    private readonly options: ProcessHostOptions,
  ) {
    this.idleMs = options.idleMs;
    handle.onMessage((message) => {
      const lane = this.lanes.get(message.from);
      if (lane === undefined) return;
      if (message.type === "exited") lane.end({ code: message.payload.code, signal: message.payload.signal });
      else lane.deliver(message);
    });
    handle.onExit((exit) => this.ended(exit));
  }

  get pid(): number {
    return this.handle.pid;
  }
  get group(): string {
    return this.options.group;
  }
  get label(): string {
    return this.options.label;
  }

  /** Open to new lanes: alive and not retired. */
  get open(): boolean {
    return this.exit === undefined && !this.retired;
  }

  /** Opens a child in this host; undefined when the host's channel is closed (it is on its way out). */
  place(request: SpawnRequest): InstanceLane | undefined {
    if (!this.open) return undefined;
    if (request.share !== undefined) this.idleMs = request.share.idleMs;
    const lane = new InstanceLane(request.address, this, {
      clock: this.options.clock,
      killGraceMs: this.options.killGraceMs,
    });
    if (!this.handle.send(envelope("open", ORCHESTRATOR, request.address, { argv: request.argv }))) {
      this.retire();
      return undefined;
    }
    this.clearIdle();
    this.lanes.get(request.address)?.end({ code: null, signal: "SIGKILL" });
    this.lanes.set(request.address, lane);
    return lane;
  }

  send(message: ParentMessage): boolean {
    return this.exit === undefined && this.handle.send(message);
  }

  kill(signal: "SIGTERM" | "SIGKILL"): void {
    if (signal === "SIGKILL")
      this.options.logger.warn({ pid: this.pid, lanes: this.lanes.size }, "killing a shared agent process");
    this.handle.kill(signal);
  }

  /** No new children; it exits once empty. */
  retire(): void {
    if (this.retired) return;
    this.retired = true;
    if (this.lanes.size === 0) this.stopIfEmpty();
  }

  laneEnded(lane: InstanceLane): void {
    if (this.lanes.get(lane.address) === lane) this.lanes.delete(lane.address);
    if (this.lanes.size > 0 || this.exit !== undefined) return;
    if (this.retired) return this.stopIfEmpty();
    this.clearIdle();
    this.idleTimer = this.options.clock.setTimeout(() => {
      this.idleTimer = undefined;
      this.retire();
    }, this.idleMs);
  }

  private stopIfEmpty(): void {
    if (this.lanes.size > 0 || this.exit !== undefined) return;
    this.options.logger.debug({ pid: this.pid, group: this.options.label }, "shared agent process empty; stopping it");
    this.handle.kill("SIGTERM");
  }

  private ended(exit: ChildExit): void {
    this.exit = exit;
    this.retired = true;
    this.clearIdle();
    for (const lane of [...this.lanes.values()]) lane.end(exit);
    this.lanes.clear();
    this.options.gone(this);
  }

  private clearIdle(): void {
    if (this.idleTimer !== undefined) this.options.clock.clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}
