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
  /** Live members per group key, kept as members come and go (a node may hold thousands). */
  private readonly counts = new Map<string, number>();
  private readonly groupOfLive = new Map<PoolMember, string>();
  /** Live members whose costly start (a process of their own) has not reported ready yet. */
  private readonly starting = new Set<PoolMember>();

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
    return new Map(this.counts);
  }

  request(member: PoolMember): void {
    if (this.live.has(member) || this.waiting.includes(member)) return;
    this.waiting.push(member);
    this.grant();
  }

  released(member: PoolMember): void {
    this.forget(member);
    const index = this.waiting.indexOf(member);
    if (index >= 0) this.waiting.splice(index, 1);
    this.grant();
  }

  /** A member's child became ready: another spawn may begin. */
  started(member: PoolMember): void {
    this.starting.delete(member);
    this.grant();
  }

  /** A member turned idle with nothing queued: stop it if someone is waiting for a slot. */
  idled(_member: PoolMember): void {
    if (this.waiting.length > 0) this.grant();
  }

  private maxInstances(): number {
    return Math.max(1, this.options.maxInstances());
  }

  private admit(member: PoolMember, group: { key: string; cheapStart: boolean } | undefined): void {
    this.live.add(member);
    if (group !== undefined) {
      this.groupOfLive.set(member, group.key);
      this.counts.set(group.key, (this.counts.get(group.key) ?? 0) + 1);
    }
    if (group?.cheapStart !== true) this.starting.add(member);
  }

  private forget(member: PoolMember): void {
    if (!this.live.delete(member)) return;
    this.starting.delete(member);
    const key = this.groupOfLive.get(member);
    if (key === undefined) return;
    this.groupOfLive.delete(member);
    const left = (this.counts.get(key) ?? 1) - 1;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
  }

  private grant(): void {
    if (this.waiting.length === 0) return;
    const full = new Set<string>();
    for (let index = 0; index < this.waiting.length && this.live.size < this.maxInstances(); ) {
      const next = this.waiting[index] as PoolMember;
      const group = next.slotGroup?.();
      const groupFull = group !== undefined && (this.counts.get(group.key) ?? 0) >= Math.max(1, group.max);
      const throttled = group?.cheapStart !== true && this.starting.size >= this.maxConcurrentSpawns;
      if (groupFull || throttled) {
        if (groupFull) full.add(group.key);
        index += 1;
        continue;
      }
      this.waiting.splice(index, 1);
      this.admit(next, group);
      next.start();
    }
    if (this.waiting.length > 0) this.evictIdle(full);
  }

  /** Stops idle members to make room: for the node's cap, and within each full group that has someone waiting. */
  private evictIdle(fullGroups: ReadonlySet<string>): void {
    const idle = [...this.live].filter((member) => member.status === "idle" && !member.hasWork());
    const draining = [...this.live].filter((member) => member.status === "draining");
    const stop = new Set<PoolMember>();
    const waitingGroups = this.waiting.map((member) => member.slotGroup?.()?.key);
    const nodeNeeded =
      waitingGroups.filter((key) => key === undefined || !fullGroups.has(key)).length -
      draining.length -
      Math.max(0, this.maxInstances() - this.live.size);
    for (const member of leastRecent(idle, nodeNeeded)) stop.add(member);
    for (const key of fullGroups) {
      const waitingInGroup = waitingGroups.filter((waiting) => waiting === key).length;
      const drainingInGroup = draining.filter((member) => this.groupOfLive.get(member) === key).length;
      const candidates = idle.filter((member) => this.groupOfLive.get(member) === key && !stop.has(member));
      for (const member of leastRecent(candidates, waitingInGroup - drainingInGroup)) stop.add(member);
    }
    for (const member of stop) void member.stop({ reason: "evicted", gracePeriodMs: this.options.gracePeriodMs() });
  }
}

/**
 * The `count` least recently active of `members`, oldest first. An eviction at the cap needs one or two of a pool that
 * may hold thousands: each is picked in a pass over them rather than by sorting them all.
 */
export function leastRecent<T extends { readonly lastActiveAt: number }>(members: readonly T[], count: number): T[] {
  const picked: T[] = [];
  if (count <= 0) return picked;
  for (const member of members) {
    if (picked.length >= count && (picked.at(-1) as T).lastActiveAt <= member.lastActiveAt) continue;
    let at = picked.length;
    while (at > 0 && (picked[at - 1] as T).lastActiveAt > member.lastActiveAt) at -= 1;
    picked.splice(at, 0, member);
    if (picked.length > count) picked.pop();
  }
  return picked;
}
