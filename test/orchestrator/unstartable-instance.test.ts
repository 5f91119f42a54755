import { afterEach, describe, expect, it } from "bun:test";
import { testBundle } from "../fixtures/orchestrator/test-bundle.ts";
import type { FakeChild } from "../helpers/fake-spawner.ts";
import { busyCaller, call, delegateResults, removeRoots, setup, tick } from "./routing/routing-harness.ts";

afterEach(removeRoots);

const restart = { maxConsecutiveCrashes: 3, initialBackoffMs: 1000, maxBackoffMs: 60_000 };

/** The child reports a fatal start-up error and exits 1, as the agent entry does. */
function failToStart(
  child: FakeChild,
  code = "E_CONFIG_EXTENSION_REGISTER",
  message = "extension broken threw in register",
): void {
  child.emit("fatal", { code, message });
  child.exit({ code: 1, signal: null });
}

describe("an instance that cannot start", () => {
  it("answers a waiting request with E_AGENT_CRASHED at once when its child reports a configuration error", async () => {
    const s = setup({ policy: { restart, requestTimeoutMs: 600_000 } });
    const { a } = busyCaller(s);
    await call(a, "request", { target: "b", input: "help" });
    failToStart(s.spawner.latest("b"));
    await tick();
    const [reply] = delegateResults(a);
    expect(reply).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
    expect(reply?.error?.message).toContain("E_CONFIG_EXTENSION_REGISTER");
    expect(reply?.error?.message).toContain("extension broken threw in register");
    expect(
      (await s.orchestrator.store.unanswered("test-swarm")).filter((record) => record.event.agent === "b"),
    ).toEqual([]);
    expect(s.orchestrator.processes().find((row) => row.agent === "b")).toMatchObject({
      status: "crashLoopBackOff",
      queued: 0,
    });
    expect(s.spawner.of("b")).toHaveLength(1);
  });

  it("retries other start failures, then gives up the waiting events after maxConsecutiveCrashes of them", async () => {
    const s = setup({ policy: { restart } });
    const submitted = s.orchestrator.submit({ input: "x", agent: "b" });
    let settled = false;
    void submitted.outcome.then(() => (settled = true));
    failToStart(s.spawner.latest("b"), "E_AGENT_START", "model client failed");
    s.spawner.latest("b").crash();
    await tick();
    expect(settled).toBe(false);
    expect(s.spawner.of("b")).toHaveLength(3);
    s.spawner.latest("b").crash();
    const outcome = await submitted.outcome;
    expect(outcome).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
    expect(outcome.error?.message).toContain("exited (code 1) before it was ready");
    expect(s.orchestrator.processes()[0]).toMatchObject({ agent: "b", status: "crashLoopBackOff" });
  });

  it("answers an event that arrives while it backs off at once, and recovers after a reload", async () => {
    const s = setup({ policy: { restart } });
    s.orchestrator.submit({ input: "first", agent: "b" });
    failToStart(s.spawner.latest("b"));
    const late = s.orchestrator.submit({ input: "second", agent: "b" });
    expect((await late.outcome).error?.code).toBe("E_AGENT_CRASHED");
    expect(s.spawner.of("b")).toHaveLength(1);
    await s.orchestrator.reload({
      bundle: testBundle({ agents: ["a", "b", "c"], policy: { restart } }),
      agents: ["b"],
    });
    const fixed = s.orchestrator.submit({ input: "third", agent: "b" });
    const child = s.spawner.latest("b");
    expect(s.spawner.of("b")).toHaveLength(2);
    child.ready();
    child.reply({ response: "working again" });
    expect(await fixed.outcome).toMatchObject({ status: "ok", response: "working again" });
  });
});
