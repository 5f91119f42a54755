/**
 * The process pool's slots with groups: the node's cap on live instances, a group's cap (an agent's processes times
 * the instances each may hold), waiting members of another group not held up by a full one, idle members evicted
 * within the full group, and nothing dropped: every request is granted once room frees.
 */
import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { leastRecent, ProcessPool, type PoolMember } from "../../src/supervision/process-pool.ts";

class Member implements PoolMember {
  status = "terminated";
  lastActiveAt = 0;
  started = 0;
  stopped: string[] = [];
  work = true;
  constructor(
    readonly address: string,
    private readonly group?: { key: string; max: number; cheapStart: boolean },
  ) {}
  hasWork(): boolean {
    return this.work;
  }
  start(): void {
    this.started += 1;
    this.status = "idle";
  }
  stop(options: { reason: string }): Promise<void> {
    this.stopped.push(options.reason);
    this.status = "draining";
    return Promise.resolve();
  }
  slotGroup() {
    return this.group;
  }
}

const shared = (key: string, max: number) => ({ key, max, cheapStart: true });

describe("the process pool with groups", () => {
  it("holds a group at its cap while another group's members start", () => {
    const pool = new ProcessPool({ maxInstances: () => 10, gracePeriodMs: () => 100 });
    const a = ["1", "2", "3"].map((key) => new Member(`a/${key}`, shared("agent:a", 2)));
    const b = new Member("b/1", shared("agent:b", 2));
    for (const member of [...a, b]) pool.request(member);
    expect(a.map((member) => member.started)).toEqual([1, 1, 0]);
    expect(b.started).toBe(1);
    expect(pool.waitingCount).toBe(1);
    expect(pool.groupCounts()).toEqual(
      new Map([
        ["agent:a", 2],
        ["agent:b", 1],
      ]),
    );
  });

  it("evicts an idle member of the full group for a waiting one, and grants the slot when it is released", () => {
    const pool = new ProcessPool({ maxInstances: () => 10, gracePeriodMs: () => 100 });
    const [first, second, third] = ["1", "2", "3"].map((key) => new Member(`a/${key}`, shared("agent:a", 2))) as [
      Member,
      Member,
      Member,
    ];
    const other = new Member("b/1", shared("agent:b", 5));
    pool.request(first);
    pool.request(second);
    pool.request(other);
    first.work = false;
    other.work = false;
    first.lastActiveAt = 1;
    second.lastActiveAt = 2;
    pool.request(third);
    // Only the full group's idle member goes; the other group's idle member is not touched.
    expect(first.stopped).toEqual(["evicted"]);
    expect(other.stopped).toEqual([]);
    expect(third.started).toBe(0);
    pool.released(first);
    expect(third.started).toBe(1);
  });

  it("keeps the node's cap on live instances across groups, and queues rather than drops", () => {
    const pool = new ProcessPool({ maxInstances: () => 2, gracePeriodMs: () => 100 });
    const members = ["a/1", "b/1", "c/1"].map((address) => new Member(address, shared(`agent:${address[0]}`, 100))) as [
      Member,
      Member,
      Member,
    ];
    for (const member of members) pool.request(member);
    expect(members.map((member) => member.started)).toEqual([1, 1, 0]);
    pool.released(members[0]);
    expect(members[2].started).toBe(1);
    expect(pool.liveCount).toBe(2);
  });

  it("limits concurrent spawns of own processes but not of instances opened in shared ones", () => {
    const pool = new ProcessPool({ maxInstances: () => 100, gracePeriodMs: () => 100, maxConcurrentSpawns: 1 });
    const own = ["1", "2"].map((key) => new Member(`o/${key}`, { key: "own:o", max: 10, cheapStart: false }));
    const cheap = ["1", "2", "3"].map((key) => new Member(`s/${key}`, shared("agent:s", 10)));
    for (const member of own) {
      pool.request(member);
      member.status = "spawning";
    }
    for (const member of cheap) pool.request(member);
    expect(own.map((member) => member.started)).toEqual([1, 0]);
    expect(cheap.map((member) => member.started)).toEqual([1, 1, 1]);
  });
});

describe("leastRecent", () => {
  it("picks what a stable sort by last activity would put first, for any members and count", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }),
        fc.integer({ min: -2, max: 70 }),
        (times, count) => {
          const members = times.map((lastActiveAt, index) => ({ lastActiveAt, index }));
          const sorted = [...members].sort((a, b) => a.lastActiveAt - b.lastActiveAt);
          expect(leastRecent(members, count)).toEqual(sorted.slice(0, Math.max(0, count)));
        },
      ),
    );
  });
});
