/**
 * The process slots: at most `maxProcesses` children live at once, and at most `maxConcurrentSpawns` of
 * them starting at the same time (so a burst of new instances does not starve every child of CPU past
 * its ready timeout). A supervisor that needs a child asks for a slot; when none is free, the least
 * recently used idle instance (nothing queued) is stopped to make room, and if none is idle the request
 * waits until a child exits, becomes ready, or an instance turns idle.
 */
import { availableParallelism } from "node:os";

export interface PoolMember {
  readonly address: string;
  readonly status: string;
  readonly lastActiveAt: number;
  hasWork(): boolean;
  start(): void;
  stop(options: { reason: string; gracePeriodMs: number }): Promise<void>;
}

export interface ProcessPoolOptions {
  /** Read on every decision so a reload applies at once. */
  maxProcesses: () => number;
  gracePeriodMs: () => number;
  /** Default: twice the number of CPUs, at least 2. */
  maxConcurrentSpawns?: number;
}

export class ProcessPool {
  private readonly live = new Set<PoolMember>();
  private readonly waiting: PoolMember[] = [];
  private readonly maxConcurrentSpawns: number;

  constructor(private readonly options: ProcessPoolOptions) {
    this.maxConcurrentSpawns = Math.max(1, options.maxConcurrentSpawns ?? Math.max(2, availableParallelism() * 2));
  }

  get liveCount(): number {
    return this.live.size;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  request(member: PoolMember): void {
    if (this.live.has(member) || this.waiting.includes(member)) return;
    this.waiting.push(member);
    this.grant();
  }

  released(member: PoolMember): void {
    this.live.delete(member);
    const index = this.waiting.indexOf(member);
    if (index >= 0) this.waiting.splice(index, 1);
    this.grant();
  }

  /** A member's child became ready: another spawn may begin. */
  started(_member: PoolMember): void {
    this.grant();
  }

  /** A member turned idle with nothing queued: stop it if someone is waiting for a slot. */
  idled(_member: PoolMember): void {
    if (this.waiting.length > 0) this.grant();
  }

  private maxProcesses(): number {
    return Math.max(1, this.options.maxProcesses());
  }

  private grant(): void {
    let spawning = [...this.live].filter((member) => member.status === "spawning").length;
    while (this.waiting.length > 0 && this.live.size < this.maxProcesses() && spawning < this.maxConcurrentSpawns) {
      const next = this.waiting.shift() as PoolMember;
      this.live.add(next);
      spawning++;
      next.start();
    }
    if (this.waiting.length > 0) this.evictIdle();
  }

  private evictIdle(): void {
    const draining = [...this.live].filter((member) => member.status === "draining").length;
    const needed = this.waiting.length - draining - Math.max(0, this.maxProcesses() - this.live.size);
    if (needed <= 0) return;
    const idle = [...this.live]
      .filter((member) => member.status === "idle" && !member.hasWork())
      .sort((a, b) => a.lastActiveAt - b.lastActiveAt);
    for (const member of idle.slice(0, needed))
      void member.stop({ reason: "evicted", gracePeriodMs: this.options.gracePeriodMs() });
  }
}
