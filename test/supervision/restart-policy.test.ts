import { describe, expect, it } from "bun:test";
import {
  backoffDelay,
  decideAfterCrash,
  isPoison,
  StoreFaultCount,
  storeFaultDelay,
  type RestartPolicy,
} from "../../src/supervision/restart-policy.ts";

const policy: RestartPolicy = { maxConsecutiveCrashes: 3, initialBackoffMs: 100, maxBackoffMs: 1000 };

describe("backoffDelay", () => {
  it.each([
    [1, 0],
    [2, 0],
    [3, 0],
    [4, 100],
    [5, 200],
    [6, 400],
    [7, 800],
    [8, 1000],
    [50, 1000],
    [100_000, 1000],
  ])("after crash %i in a row waits %i ms", (consecutiveCrashes, expected) => {
    expect(backoffDelay({ consecutiveCrashes, policy })).toBe(expected);
  });
});

describe("decideAfterCrash", () => {
  it("restarts at once up to maxConsecutiveCrashes", () => {
    for (const consecutiveCrashes of [1, 2, 3])
      expect(decideAfterCrash({ consecutiveCrashes, policy })).toEqual({ action: "restart" });
  });

  it("backs off past maxConsecutiveCrashes", () => {
    expect(decideAfterCrash({ consecutiveCrashes: 4, policy })).toEqual({ action: "backoff", delayMs: 100 });
  });

  it("backs off from the first crash when maxConsecutiveCrashes is 0", () => {
    expect(decideAfterCrash({ consecutiveCrashes: 1, policy: { ...policy, maxConsecutiveCrashes: 0 } })).toEqual({
      action: "backoff",
      delayMs: 100,
    });
  });
});

describe("isPoison", () => {
  it("gives an event up once it crashed the child maxConsecutiveCrashes times", () => {
    expect([1, 2, 3, 4].map((crashes) => isPoison({ crashes, policy }))).toEqual([false, false, true, true]);
  });

  it("gives up after one crash when maxConsecutiveCrashes is 0", () => {
    expect(isPoison({ crashes: 1, policy: { ...policy, maxConsecutiveCrashes: 0 } })).toBe(true);
  });
});

describe("store faults", () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [5, 16_000],
    [6, 30_000],
    [1000, 30_000],
  ])(
    "after store fault %i in a row waits %i ms, whatever the crash policy's short backoff",
    (storeFaults, expected) => {
      expect(storeFaultDelay({ storeFaults, policy })).toBe(expected);
    },
  );

  it("backs off even the first store fault, below maxConsecutiveCrashes", () => {
    expect(decideAfterCrash({ consecutiveCrashes: 1, policy, storeFaults: 1 })).toEqual({
      action: "backoff",
      delayMs: 1000,
    });
  });

  it("counts faults in a row while they come within a minute of each other, and from 1 after a quiet minute", () => {
    const count = new StoreFaultCount();
    expect([0, 1_000, 3_000, 40_000].map((at) => count.fault(at))).toEqual([1, 2, 3, 4]);
    expect(count.fault(40_000 + 60_001)).toBe(1);
  });
});
