/**
 * The interest bookkeeping of live events (src/cluster/live/live-interest.ts), with a fake clock and an `ask` that
 * records its calls: a node publishes while an interest is fresher than its window, and a watching node asks every
 * member when a watch opens and again every renewal while one stays open, and no more once the last closes.
 */
import { describe, expect, it } from "bun:test";
import { InterestAsker, InterestLedger } from "../../../src/cluster/live/live-interest.ts";
import type { UnansweredNode } from "../../../src/cluster/members/node-fan-out.ts";

describe("InterestLedger", () => {
  it("is wanted while some interest is fresher than the window, and forgets stale ones", () => {
    let now = 1000;
    const ledger = new InterestLedger({ freshMs: 6000, now: () => now });
    expect(ledger.wanted()).toBe(false);
    ledger.note("n2");
    now += 4000;
    ledger.note("n3");
    expect(ledger.watchers()).toEqual(["n2", "n3"]);
    now += 2000; // n2's is 6000 ms old: stale
    expect(ledger.watchers()).toEqual(["n3"]);
    ledger.note("n2"); // renewed
    now += 5999;
    expect(ledger.watchers()).toEqual(["n2"]);
    now += 1;
    expect(ledger.wanted()).toBe(false);
    expect(ledger.watchers()).toEqual([]);
  });
});

/** Resolves once `done()` holds, polling every 5 ms; fails after 5 s (real timers run late on a loaded machine). */
async function eventually(done: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5000; !done(); await Bun.sleep(5))
    if (Date.now() > deadline) throw new Error("not within 5 s");
}

describe("InterestAsker", () => {
  function asker(answer: () => Promise<UnansweredNode[]>) {
    let asked = 0;
    const missed: UnansweredNode[][] = [];
    const interest = new InterestAsker({
      renewMs: 20,
      ask: () => ((asked += 1), answer()),
      onUnanswered: (unanswered) => missed.push(unanswered),
    });
    return { interest, asked: () => asked, missed };
  }

  it("asks when a watch opens, renews while one is open, and stops once the last one closes", async () => {
    const { interest, asked } = asker(async () => []);
    const first = interest.start();
    expect(await first.ready).toEqual([]);
    expect(asked()).toBe(1);
    const second = interest.start();
    await second.ready;
    expect(asked()).toBe(2); // a second watch asks too: a member that joined since hears of it
    expect(interest.watching).toBe(2);
    await eventually(() => asked() >= 5); // renewed every 20 ms
    const renewed = asked();
    first.stop();
    first.stop(); // twice is once
    expect(interest.watching).toBe(1);
    await eventually(() => asked() > renewed); // still renewing for the second
    second.stop();
    expect(interest.watching).toBe(0);
    const stopped = asked();
    await Bun.sleep(80);
    expect(asked()).toBe(stopped);
  });

  it("names the members that did not answer, on opening and (debug) on renewal; a failing ask does not break the watch", async () => {
    let fail = false;
    const { interest, missed } = asker(async () => {
      if (fail) throw new Error("NATS away");
      return [{ node: "n3", status: "timeout" }];
    });
    const watch = interest.start();
    expect(await watch.ready).toEqual([{ node: "n3", status: "timeout" }]);
    await eventually(() => missed.length > 0);
    expect(missed[0]).toEqual([{ node: "n3", status: "timeout" }]);
    fail = true;
    const another = interest.start();
    expect(await another.ready).toEqual([]);
    watch.stop();
    another.stop();
  });
});
