/**
 * The slots for live children: at most `maxInstances` members live at once on this node, at most the cap of its
 * group (an agent's processes times the children each may hold) per group, and at most `maxConcurrentSpawns` of
 * them starting at the same time (so a burst of new instances does not starve every child of CPU past its ready
 * timeout; a child opened in a shared process that is already up is cheap and does not count). A supervisor that
 * needs a child asks for a slot; when none is free, the least recently used idle member (nothing queued) of the
 * node, or of the full group, is stopped to make room, and the request waits (never dropped) until a child exits,
 * becomes ready, or a member turns idle. Waiting members of other groups are not held up by a full group.
 */
import { availableParallelism } from "node:os";

export interface PoolMember {
  readonly address: string;
  readonly status: string;
  readonly lastActiveAt: number;
  hasWork(): boolean;
  start(): void;
  stop(options: { reason: string; gracePeriodMs: number }): Promise<void>;
  /** The member's group and its cap, read on every decision; absent: only the node's cap applies. */
  slotGroup?(): { key: string; max: number; cheapStart: boolean } | undefined;
}

export interface ProcessPoolOptions {
  /** Read on every decision so a reload applies at once. */
  maxInstances: () => number;
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

  /** Live members per group key. */
  groupCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const member of this.live) {
      const key = member.slotGroup?.()?.key;
      if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
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

  private maxInstances(): number {
    return Math.max(1, this.options.maxInstances());
  }

  private grant(): void {
    const groups = this.groupCounts();
    let spawning = [...this.live].filter(
      (member) => member.status === "spawning" && !member.slotGroup?.()?.cheapStart,
    ).length;
    const full = new Set<string>();
    for (let index = 0; index < this.waiting.length && this.live.size < this.maxInstances(); ) {
      const next = this.waiting[index] as PoolMember;
      const group = next.slotGroup?.();
      const inGroup = group === undefined ? 0 : (groups.get(group.key) ?? 0);
      const costly = group?.cheapStart !== true;
      if (
        (group !== undefined && inGroup >= Math.max(1, group.max)) ||
        (costly && spawning >= this.maxConcurrentSpawns)
      ) {
        if (group !== undefined && inGroup >= Math.max(1, group.max)) full.add(group.key);
        index += 1;
        continue;
      }
      this.waiting.splice(index, 1);
      this.live.add(next);
      if (group !== undefined) groups.set(group.key, inGroup + 1);
      if (costly) spawning += 1;
      next.start();
    }
    if (this.waiting.length > 0) this.evictIdle(full);
  }

  /** Stops idle members to make room: for the node's cap, and within each full group that has someone waiting. */
  private evictIdle(fullGroups: ReadonlySet<string>): void {
    const idle = [...this.live]
      .filter((member) => member.status === "idle" && !member.hasWork())
      .sort((a, b) => a.lastActiveAt - b.lastActiveAt);
    const draining = [...this.live].filter((member) => member.status === "draining");
    const stop = new Set<PoolMember>();
    const nodeNeeded =
      this.waiting.filter((member) => !fullGroups.has(member.slotGroup?.()?.key ?? "")).length -
      draining.length -
      Math.max(0, this.maxInstances() - this.live.size);
    for (const member of idle.slice(0, Math.max(0, nodeNeeded))) stop.add(member);
    for (const key of fullGroups) {
      const waitingInGroup = this.waiting.filter((member) => member.slotGroup?.()?.key === key).length;
      const drainingInGroup = draining.filter((member) => member.slotGroup?.()?.key === key).length;
      const candidates = idle.filter((member) => member.slotGroup?.()?.key === key && !stop.has(member));
      for (const member of candidates.slice(0, Math.max(0, waitingInGroup - drainingInGroup))) stop.add(member);
    }
    for (const member of stop) void member.stop({ reason: "evicted", gracePeriodMs: this.options.gracePeriodMs() });
  }
}
