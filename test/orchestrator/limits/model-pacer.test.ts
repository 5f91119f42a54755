/**
 * A Model's pacer alone (docs/limits.md#provider-pacing), on a manual clock: permits leave `60000 / requestsPerMinute`
 * ms apart in the order asked, none while the last minute's tokens reach `tokensPerMinute`, and none during a 429's
 * pause, after which the held calls leave spread by jitter.
 */
import { describe, expect, it } from "bun:test";
import { ModelPacer } from "../../../src/orchestrator/limits/model-pacer.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";

/** Lets the pacer's promise chain run between clock steps. */
const settle = async () => {
  for (let index = 0; index < 10; index++) await Promise.resolve();
};

async function grantTimes(clock: ManualClock, pacer: ModelPacer, calls: number, stepMs: number, untilMs: number) {
  const start = clock.now();
  const granted: number[] = [];
  for (let index = 0; index < calls; index++) void pacer.acquire().then(() => granted.push(clock.now() - start));
  for (let elapsed = 0; elapsed <= untilMs; elapsed += stepMs) {
    await settle();
    clock.advance(stepMs);
  }
  await settle();
  return granted;
}

describe("ModelPacer", () => {
  it("spaces permits by 60000 / requestsPerMinute", async () => {
    const clock = new ManualClock();
    const pacer = new ModelPacer({ rateLimit: { requestsPerMinute: 600 }, clock });
    expect(await grantTimes(clock, pacer, 4, 10, 1000)).toEqual([0, 100, 200, 300]);
  });

  it("holds permits while the last minute's tokens reach tokensPerMinute", async () => {
    const clock = new ManualClock();
    const pacer = new ModelPacer({ rateLimit: { tokensPerMinute: 1000 }, clock });
    pacer.spent(600);
    clock.advance(10_000);
    pacer.spent(500);
    // 1100 tokens in the minute: free again once the first 600 are a minute old (50 s from here).
    expect(await grantTimes(clock, pacer, 1, 1000, 70_000)).toEqual([50_000]);
  });

  it("pauses every permit for a 429's Retry-After, then lets the held calls go spread apart", async () => {
    const clock = new ManualClock();
    const pacer = new ModelPacer({ rateLimit: { requestsPerMinute: 6000 }, clock, random: () => 0.5 });
    pacer.throttled(2000);
    const granted = await grantTimes(clock, pacer, 3, 10, 5000);
    expect(granted.length).toBe(3);
    expect(Math.min(...granted)).toBeGreaterThanOrEqual(2000);
    // Jitter of half a quarter of min(1000, 2000) ms between them, more than the 10 ms pacing.
    expect((granted[2] as number) - (granted[1] as number)).toBeGreaterThanOrEqual(120);
  });
});
