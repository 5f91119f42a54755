/**
 * The process slots: at most `maxProcesses` children live at once. A supervisor that needs a child asks
 * for a slot; when none is free, the least recently used idle instance (nothing queued) is stopped to
 * make room, and if none is idle the request waits until a child exits or an instance turns idle.
 */
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
}

export class ProcessPool {
  private readonly live = new Set<PoolMember>();
  private readonly waiting: PoolMember[] = [];

  constructor(private readonly options: ProcessPoolOptions) {}

  get liveCount(): number {
    return this.live.size;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  request(member: PoolMember): void {
    if (this.live.has(member) || this.waiting.includes(member)) return;
    if (this.live.size < Math.max(1, this.options.maxProcesses())) {
      this.live.add(member);
      member.start();
      return;
    }
    this.waiting.push(member);
    this.evictIdle();
  }

  released(member: PoolMember): void {
    this.live.delete(member);
    const index = this.waiting.indexOf(member);
    if (index >= 0) this.waiting.splice(index, 1);
    this.grant();
  }

  /** A member turned idle with nothing queued: stop it if someone is waiting for a slot. */
  idled(_member: PoolMember): void {
    if (this.waiting.length > 0) this.evictIdle();
  }

  private grant(): void {
    while (this.waiting.length > 0 && this.live.size < Math.max(1, this.options.maxProcesses())) {
      const next = this.waiting.shift() as PoolMember;
      this.live.add(next);
      next.start();
    }
    if (this.waiting.length > 0) this.evictIdle();
  }

  private evictIdle(): void {
    const draining = [...this.live].filter((member) => member.status === "draining").length;
    const needed = this.waiting.length - draining - Math.max(0, Math.max(1, this.options.maxProcesses()) - this.live.size);
    if (needed <= 0) return;
    const idle = [...this.live].filter((member) => member.status === "idle" && !member.hasWork()).sort((a, b) => a.lastActiveAt - b.lastActiveAt);
    for (const member of idle.slice(0, needed)) void member.stop({ reason: "evicted", gracePeriodMs: this.options.gracePeriodMs() });
  }
}
