import { describe, expect, it } from "bun:test";
import { LeaseKeeper, type LeaseLossReason } from "../../../src/cluster/lease/lease-keeper.ts";
import type { ClaimOutcome, Lease, ReleaseOutcome, RenewOutcome } from "../../../src/cluster/lease/lease-table.ts";
import { SystemError } from "../../../src/shared/errors.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";

/** A lease table whose renew answers are chosen by the test, one call at a time. */
class ScriptedTable {
  readonly ttlMs = 10_000;
  revision = 0;
  renews: { lease: Lease; answer: (outcome: RenewOutcome | Error) => void }[] = [];
  released: Lease[] = [];

  async claim(key: string, owner: string): Promise<ClaimOutcome> {
    return { status: "claimed", lease: { key, owner, revision: ++this.revision } };
  }

  renew(lease: Lease): Promise<RenewOutcome> {
    return new Promise((resolve, reject) => {
      this.renews.push({ lease, answer: (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)) });
    });
  }

  async release(lease: Lease): Promise<ReleaseOutcome> {
    this.released.push(lease);
    return { status: "released" };
  }

  /** Answer the oldest open renew as renewed. */
  renewOk(): void {
    const call = this.renews.shift()!;
    call.answer({ status: "renewed", lease: { ...call.lease, revision: ++this.revision } });
  }
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup(options: { marginMs?: number; renewEveryMs?: number } = {}) {
  const clock = new ManualClock();
  const table = new ScriptedTable();
  const lost: { key: string; reason: LeaseLossReason; at: number }[] = [];
  const keeper = new LeaseKeeper({
    table,
    owner: "node-a",
    clock,
    onLost: (lease, reason) => lost.push({ key: lease.key, reason, at: clock.now() }),
    ...options,
  });
  return { clock, table, lost, keeper, start: clock.now() };
}

describe("LeaseKeeper", () => {
  it("renews every quarter of the TTL by default, at the revision of its last write", async () => {
    const { clock, table, keeper, lost } = setup();
    await keeper.claim("k");
    clock.advance(2499);
    expect(table.renews).toHaveLength(0);
    clock.advance(1);
    expect(table.renews.map((call) => call.lease.revision)).toEqual([1]);
    table.renewOk();
    await flush();
    clock.advance(2500);
    expect(table.renews.map((call) => call.lease.revision)).toEqual([2]);
    table.renewOk();
    await flush();
    expect(keeper.leases()).toEqual([{ key: "k", owner: "node-a", revision: 3 }]);
    expect(lost).toEqual([]);
  });

  it("tells the holder to stop at ttl - margin after the last renew it sent, when no renew answers", async () => {
    const { clock, table, keeper, lost, start } = setup();
    await keeper.claim("k");
    clock.advance(2500);
    table.renewOk();
    await flush();
    // From here every renew fails; the last success was sent at start + 2500.
    for (let step = 0; step < 200 && lost.length === 0; step++) {
      clock.advance(100);
      for (const call of table.renews.splice(0)) call.answer(new SystemError("E_CLUSTER_UNAVAILABLE", "no answer"));
      await flush();
    }
    expect(lost).toEqual([{ key: "k", reason: "unrenewed", at: start + 2500 + 10_000 - 2000 }]);
    expect(keeper.holds("k")).toBe(false);
    // Nothing more happens for it: no renews, no second call.
    clock.advance(20_000);
    await flush();
    expect(table.renews).toHaveLength(0);
    expect(lost).toHaveLength(1);
  });

  it("tells the holder to stop even while a renew hangs, and releases that renew when it lands late", async () => {
    const { clock, table, keeper, lost, start } = setup();
    await keeper.claim("k");
    clock.advance(2500);
    expect(table.renews).toHaveLength(1);
    clock.advance(5499);
    expect(lost).toEqual([]);
    clock.advance(1);
    expect(lost).toEqual([{ key: "k", reason: "unrenewed", at: start + 8000 }]);
    table.renewOk();
    await flush();
    expect(table.released).toEqual([{ key: "k", owner: "node-a", revision: 2 }]);
  });

  it("tells the holder at once when a renew is refused because another node took the key", async () => {
    const { clock, table, keeper, lost, start } = setup();
    await keeper.claim("k");
    clock.advance(2500);
    table.renews.shift()!.answer({ status: "lost", reason: "taken" });
    await flush();
    expect(lost).toEqual([{ key: "k", reason: "taken", at: start + 2500 }]);
    expect(clock.pendingDelays()).toEqual([]);
  });

  it("keeps a lease that its own renew, timed out here, wrote on the server after all", async () => {
    const { clock, table, keeper, lost } = setup();
    await keeper.claim("k");
    clock.advance(2500);
    table.renews.shift()!.answer(new SystemError("E_CLUSTER_UNAVAILABLE", "timeout"));
    await flush();
    clock.advance(625);
    const refused = table.renews.shift()!;
    expect(refused.lease.revision).toBe(1);
    table.revision = 5; // the late renew's write
    refused.answer({
      status: "lost",
      reason: "taken",
      holder: { key: "k", owner: "node-a", revision: 5, writtenAt: 0, data: {} },
    });
    await flush();
    clock.advance(0);
    expect(table.renews.map((call) => call.lease.revision)).toEqual([5]);
    table.renewOk();
    await flush();
    expect(lost).toEqual([]);
    expect(keeper.leases()).toEqual([{ key: "k", owner: "node-a", revision: 6 }]);
  });

  it("releases a lease at its revision and stops renewing it", async () => {
    const { clock, table, keeper } = setup();
    await keeper.claim("k");
    await keeper.release("k");
    expect(table.released).toEqual([{ key: "k", owner: "node-a", revision: 1 }]);
    clock.advance(30_000);
    expect(table.renews).toHaveLength(0);
  });

  it("refuses a margin or renew interval that leaves no time to renew", () => {
    expect(() => setup({ marginMs: 10_000 })).toThrow(RangeError);
    expect(() => setup({ marginMs: 2000, renewEveryMs: 8000 })).toThrow(RangeError);
  });
});
