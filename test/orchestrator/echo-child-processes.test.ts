/**
 * The orchestrator with the real Bun spawner against real child processes (the protocol-speaking echo
 * child in test/fixtures/orchestrator): delegation across processes, cycles, kill -9 mid-turn, crash
 * loops, graceful drain, and no child left behind.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Orchestrator } from "../../src/orchestrator/orchestrator.ts";
import { bunProcessSpawner } from "../../src/supervision/process-spawner.ts";
import { testBundle, type TestBundleOptions } from "../fixtures/orchestrator/test-bundle.ts";
import { until as pollUntil } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const ECHO_CHILD = new URL("../fixtures/orchestrator/echo-child.ts", import.meta.url).pathname;
const defer = useCleanups();

function setup(policy: TestBundleOptions["policy"] = {}, env: Record<string, string> = {}) {
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-echo-"));
  const orchestrator = new Orchestrator({
    bundle: testBundle({ agents: ["a", "b", "c"], policy: { shutdown: { gracePeriodSeconds: 2 }, ...policy } }),
    stateRoot,
    spawner: bunProcessSpawner({ entryScript: ECHO_CHILD, output: "ignore", env: { ...process.env, ...env } }),
  });
  defer(async () => {
    await orchestrator.shutdown({ reason: "test over", gracePeriodMs: 500 });
    rmSync(stateRoot, { recursive: true, force: true });
  });
  const log = (): Record<string, unknown>[] => {
    const file = join(stateRoot, "echo-log.jsonl");
    return existsSync(file)
      ? readFileSync(file, "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
  };
  return { orchestrator, stateRoot, log };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const until = <T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000) =>
  pollUntil(probe, { timeoutMs, intervalMs: 10 });

describe("orchestrator with real child processes", () => {
  it("routes a delegation A -> B across two processes and returns B's answer to A", async () => {
    const { orchestrator, log } = setup();
    const outcome = await orchestrator.submit({ input: "request b what is up", traceId: "trace-x" }).outcome;
    expect(outcome).toMatchObject({ status: "ok", response: "a/test-swarm got: b/test-swarm: what is up" });
    const pids = new Set(
      log()
        .filter((record) => record.type === "event")
        .map((record) => record.pid),
    );
    expect(pids.size).toBe(2);
    const delegated = log().find((record) => record.agent === "b");
    expect(delegated).toMatchObject({ traceId: "trace-x", callChain: ["a"], parentSpanId: expect.any(String) });
  });

  it("refuses a cycle A -> B -> A with E_CIRCULAR_CALL_DETECTED instead of hanging", async () => {
    const { orchestrator } = setup();
    const outcome = await orchestrator.submit({ input: "request b request a loop" }).outcome;
    expect(outcome.response).toBe("a/test-swarm got: refused E_CIRCULAR_CALL_DETECTED");
  });

  it("a child killed with SIGKILL mid-turn is restarted and the reply is delivered once", async () => {
    const { orchestrator, log } = setup();
    const submitted = orchestrator.submit({ input: "sleep 400 survived" });
    const first = await until(() => log().find((record) => record.type === "event"));
    process.kill(first.pid as number, "SIGKILL");
    const outcome = await submitted.outcome;
    expect(outcome).toMatchObject({ status: "ok", response: "a/test-swarm: survived" });
    const deliveries = log().filter((record) => record.type === "event");
    expect(deliveries.map((record) => record.attempt)).toEqual([1, 2]);
    expect(deliveries[1]?.pid).not.toBe(first.pid);
    expect(orchestrator.processes()[0]).toMatchObject({ restarts: 1, consecutiveCrashes: 0, status: "idle" });
  });

  it("a callee killed with SIGKILL mid-turn still answers its requester exactly once", async () => {
    const { orchestrator, log } = setup();
    const submitted = orchestrator.submit({ input: "request b sleep 400 from b" });
    const calleeTurn = await until(() => log().find((record) => record.type === "event" && record.agent === "b"));
    process.kill(calleeTurn.pid as number, "SIGKILL");
    expect(await submitted.outcome).toMatchObject({ status: "ok", response: "a/test-swarm got: b/test-swarm: from b" });
    await Bun.sleep(50);
    expect(log().filter((record) => record.type === "delegate_result")).toHaveLength(1);
    expect(
      log()
        .filter((record) => record.type === "event" && record.agent === "b")
        .map((record) => record.attempt),
    ).toEqual([1, 2]);
  });

  it("a child that keeps failing to start gives up the waiting event, backs off, and recovers once it can start", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "goondan-marker-")), "crash");
    writeFileSync(marker, "");
    defer(() => rmSync(marker, { force: true }));
    const { orchestrator } = setup(
      { restart: { maxConsecutiveCrashes: 2, initialBackoffMs: 300, maxBackoffMs: 300 } },
      { GOONDAN_ECHO_CRASH_ON_START: marker },
    );
    const given = await orchestrator.submit({ input: "hello in the storm" }).outcome;
    expect(given).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
    expect(orchestrator.processes()[0]?.status).toBe("crashLoopBackOff");
    rmSync(marker);
    await until(() => orchestrator.processes()[0]?.status === "idle");
    expect(await orchestrator.submit({ input: "hello after the storm" }).outcome).toMatchObject({
      status: "ok",
      response: "a/test-swarm: hello after the storm",
    });
    expect(orchestrator.processes()[0]).toMatchObject({ status: "idle", consecutiveCrashes: 0 });
    expect(orchestrator.processes()[0]?.restarts).toBeGreaterThanOrEqual(2);
  });

  it("shutdown drains a running turn, then no child is left", async () => {
    const { orchestrator, log } = setup();
    const submitted = orchestrator.submit({ input: "sleep 300 drained" });
    orchestrator.submit({ input: "idle one", agent: "b" });
    await until(
      () =>
        log().filter((record) => record.type === "event").length === 2 &&
        orchestrator.processes().every((row) => row.pid !== null),
    );
    const pids = orchestrator.processes().map((row) => row.pid as number);
    await orchestrator.shutdown({ reason: "SIGTERM" });
    expect(await submitted.outcome).toMatchObject({ status: "ok", response: "a/test-swarm: drained" });
    expect(pids.filter(alive)).toEqual([]);
  });

  it("reaps an idle child after idleSeconds and spawns a new one for the next event", async () => {
    const { orchestrator, log } = setup({ lifecycle: { idleSeconds: 0.2 } });
    await orchestrator.submit({ input: "one" }).outcome;
    const firstPid = orchestrator.processes()[0]?.pid as number;
    await until(() => orchestrator.processes().length === 0);
    expect(alive(firstPid)).toBe(false);
    await orchestrator.submit({ input: "two" }).outcome;
    const pids = log()
      .filter((record) => record.type === "event")
      .map((record) => record.pid);
    expect(new Set(pids).size).toBe(2);
  });
});
