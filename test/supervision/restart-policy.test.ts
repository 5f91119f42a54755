import { describe, expect, it } from "bun:test";
import { backoffDelay, decideAfterCrash, isPoison, type RestartPolicy } from "../../src/supervision/restart-policy.ts";

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
