/**
 * A redelivery after a crash says how the child died (`crashedBefore`: exit code, signal, or the heartbeat
 * watchdog's reason), durably, so the agent can answer the tool calls that were running with
 * E_TOOL_INTERRUPTED; a redelivery after a clean stop says nothing, and a given-up event's E_AGENT_CRASHED says
 * how it died the last time.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { removeRoots, setup } from "./routing/routing-harness.ts";

afterEach(removeRoots);

describe("crashedBefore on a redelivery", () => {
  it("tells the next delivery how the child died: its exit code, its signal, the watchdog's reason", () => {
    const s = setup({ policy: { lifecycle: { heartbeatTimeoutSeconds: 5 }, restart: { maxConsecutiveCrashes: 5 } } });
    s.orchestrator.submit({ input: "crashy" });
    const first = s.spawner.latest("a");
    first.ready();
    expect(first.events()[0]).toEqual(expect.not.objectContaining({ crashedBefore: expect.anything() }));
    first.crash();
    const second = s.spawner.latest("a");
    second.ready();
    expect(second.events()[0]).toMatchObject({ attempt: 2, crashedBefore: "it exited with code 1" });
    second.exit({ code: null, signal: "SIGSEGV" });
    const third = s.spawner.latest("a");
    third.ready();
    expect(third.events()[0]).toMatchObject({ attempt: 3, crashedBefore: "it was killed by SIGSEGV" });
    s.clock.advance(5_000);
    const fourth = s.spawner.latest("a");
    fourth.ready();
    expect(fourth.events()[0]?.crashedBefore).toMatch(/^it was killed after 5 s without a heartbeat during a turn/);
  });

  it("gives the event up with E_AGENT_CRASHED saying how the child died the last time", async () => {
    const s = setup({ policy: { restart: { maxConsecutiveCrashes: 2 } } });
    const submitted = s.orchestrator.submit({ input: "poison" });
    s.spawner.latest("a").ready();
    s.spawner.latest("a").crash();
    s.spawner.latest("a").ready();
    s.spawner.latest("a").exit({ code: null, signal: "SIGABRT" });
    const outcome = await submitted.outcome;
    expect(outcome).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
    expect(outcome.error?.message).toBe(
      "a/test-swarm crashed 2 times while handling this event (last time it was killed by SIGABRT); it was dropped",
    );
  });

  it("says nothing after a clean stop cut the turn short, in this orchestrator and the next on the same state root", async () => {
    const s = setup({ policy: { restart: { maxConsecutiveCrashes: 5 }, shutdown: { gracePeriodSeconds: 1 } } });
    s.orchestrator.submit({ input: "interrupted twice" });
    s.spawner.latest("a").ready();
    s.spawner.latest("a").crash();
    const second = s.spawner.latest("a");
    second.ready();
    expect(second.events()[0]?.crashedBefore).toBe("it exited with code 1");
    const stopped = s.orchestrator.shutdown({ reason: "test", gracePeriodMs: 1000 });
    second.exit(); // finished its drain without answering: the event stays in the inbox
    await stopped;
    const next = setup({ stateRoot: s.stateRoot });
    expect(await next.orchestrator.start()).toEqual({ resumed: 1 });
    next.spawner.latest("a").ready();
    expect(next.spawner.latest("a").events()[0]).toMatchObject({ attempt: 2, event: { input: "interrupted twice" } });
    expect(next.spawner.latest("a").events()[0]?.crashedBefore).toBeUndefined();
  });
});
