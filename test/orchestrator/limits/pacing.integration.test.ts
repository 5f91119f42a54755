/**
 * Provider pacing with real agent children (docs/limits.md#provider-pacing): a Model's `spec.rateLimit` holds the
 * calls of all its processes together at its requests per minute, and a 429 answered to one process pauses every
 * process of the Model until its Retry-After has passed, so a storm costs one wait instead of a 429 per process.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundleOrThrow } from "../../../src/config/load-bundle.ts";
import { Orchestrator } from "../../../src/orchestrator/orchestrator.ts";
import { bunProcessSpawner } from "../../../src/supervision/process-spawner.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import {
  startLoopbackLlm,
  toolResults,
  type LoopbackLlmOptions,
  type LoopbackResponder,
} from "../../helpers/loopback-llm.ts";
import { writeLimitsBundle } from "../../fixtures/limits/limits-bundle.ts";

const defer = useCleanups();
const childEnv = { LOOPBACK_API_KEY: "test-key", GOONDAN_LOG_LEVEL: "warn" };

async function setup(options: { rateLimit: string; respond: LoopbackLlmOptions["respond"] }) {
  const llm = await startLoopbackLlm({ respond: options.respond });
  const dir = writeLimitsBundle({ endpoint: llm.url, model: `rateLimit: ${options.rateLimit}` });
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-pacing-"));
  const orchestrator = new Orchestrator({
    bundle: await loadBundleOrThrow(dir),
    stateRoot,
    spawner: bunProcessSpawner({ output: "ignore" }),
    env: { ...process.env, ...childEnv },
  });
  defer(async () => {
    await orchestrator.shutdown({ reason: "test over", gracePeriodMs: 1000 });
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  });
  return { llm, orchestrator };
}

/** Calls the step tool until it has `steps` results, then answers. */
const loop =
  (steps: number): LoopbackResponder =>
  (request) =>
    toolResults(request).length < steps ? { toolCalls: [{ name: "work__step", args: {} }] } : { text: "done" };

describe("Model spec.rateLimit", () => {
  it("holds the calls of two processes of one Model at its requests per minute", async () => {
    // 300 a minute: one call every 200 ms, whichever process makes it.
    const { llm, orchestrator } = await setup({ rateLimit: "{ requestsPerMinute: 300 }", respond: loop(4) });
    const outcomes = await Promise.all(
      ["a", "b"].map((instanceKey) => orchestrator.submit({ input: "go", instanceKey }).outcome),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["ok", "ok"]);
    expect(new Set(orchestrator.processes().map((process) => process.pid)).size).toBe(2);
    const arrivals = llm.requests.map((request) => request.receivedAt).sort((left, right) => left - right);
    expect(arrivals.length).toBe(10);
    const gaps = arrivals.slice(1).map((at, index) => at - (arrivals[index] as number));
    // Each permit leaves 200 ms after the one before. Without pacing, the two processes' calls arrive in pairs a few
    // ms apart (about half the gaps); on a loaded machine one call's trip to the server may lag by 100 ms or more,
    // which shortens one gap, so one short gap is allowed, never a pair of them.
    expect(gaps.filter((gap) => gap < 100).length).toBeLessThanOrEqual(1);
    expect((arrivals.at(-1) as number) - (arrivals[0] as number)).toBeGreaterThanOrEqual(9 * 200 - 100);
  }, 60_000);

  it("absorbs a storm of 429s: after one process is told to wait, no process calls before the Retry-After", async () => {
    let stormFrom: number | undefined;
    let seen = 0;
    const throttled: number[] = [];
    const respond: LoopbackLlmOptions["respond"] = (request) => {
      seen += 1;
      if (seen === 3) stormFrom = request.receivedAt;
      // The provider refuses everything for one second from the third call on.
      if (stormFrom !== undefined && request.receivedAt < stormFrom + 1000) {
        throttled.push(request.receivedAt);
        return { fail: { status: 429, retryAfter: 1 } };
      }
      return loop(2)(request);
    };
    const { llm, orchestrator } = await setup({ rateLimit: "{ requestsPerMinute: 6000 }", respond });
    const outcomes = await Promise.all(
      ["a", "b", "c", "d"].map((instanceKey) => orchestrator.submit({ input: "go", instanceKey }).outcome),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["ok", "ok", "ok", "ok"]);
    const from = stormFrom as number;
    // Calls already on their way when the first 429 came back may meet the storm too; none is made once it has
    // reached the orchestrator (a few ms; 400 ms allowed on a loaded machine), until the Retry-After has passed.
    // Without the shared pause, over a hundred calls land in this window.
    const lateInStorm = llm.requests.filter((r) => r.receivedAt > from + 400 && r.receivedAt < from + 1000);
    expect(lateInStorm).toEqual([]);
    expect(throttled.length).toBeLessThanOrEqual(4);
    expect(llm.requests.length).toBe(4 * 3 + throttled.length);
  }, 60_000);
});
