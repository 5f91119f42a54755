/**
 * The supervisor as a matrix, in the manner of OTP's supervisor tests: how a child ends (a clean exit 0, a crash, a
 * kill by a signal, an exit before ready, the ready deadline passing, a spawn that fails) × what its owner is doing
 * (nothing, holding starts for a reload, stopping it, gone from the config) × how much of the restart budget is
 * spent (`maxConsecutiveCrashes` restarts at once, then backoff doubling up to the cap, until progress or a stable
 * child resets it). Every case runs on the manual clock and the fake spawner and asserts how the exit was told to
 * the owner, how many restarts were counted, after what delay the next child was spawned, and the final status.
 */
import { describe, expect, it } from "bun:test";
import type { SupervisedExit } from "../../src/supervision/child-spec.ts";
import type { ChildExit } from "../../src/supervision/process-spawner.ts";
import { GRACE_MS, Harness, POLICY, READY_TIMEOUT_MS } from "./supervisor-harness.ts";

interface ExitKind {
  /** Whether the child says ready before it ends. */
  ready: boolean;
  end: (harness: Harness) => void;
  exit: ChildExit;
  why: string;
}

const CODE_0: ChildExit = { code: 0, signal: null };
const CODE_1: ChildExit = { code: 1, signal: null };
const KILLED: ChildExit = { code: null, signal: "SIGKILL" };

const EXIT_KINDS: [string, ExitKind][] = [
  [
    "a clean exit 0 after ready, unasked",
    { ready: true, end: (h) => h.child.exit(CODE_0), exit: CODE_0, why: "it exited with code 0" },
  ],
  [
    "a crash (exit 1) after ready",
    { ready: true, end: (h) => h.child.crash(), exit: CODE_1, why: "it exited with code 1" },
  ],
  [
    "a SIGKILL from outside after ready",
    { ready: true, end: (h) => h.child.exit(KILLED), exit: KILLED, why: "it was killed by SIGKILL" },
  ],
  ["an exit before ready", { ready: false, end: (h) => h.child.crash(), exit: CODE_1, why: "it exited with code 1" }],
  [
    "the ready deadline passing (SIGKILL from the supervisor)",
    { ready: false, end: (h) => h.clock.advance(READY_TIMEOUT_MS), exit: KILLED, why: "it was killed by SIGKILL" },
  ],
];

/** The budget spent before the exit under test → the delay before the next child (0: at once). */
const BUDGET: [string, number, number][] = [
  ["a fresh budget", 0, 0],
  ["one crash spent", 1, 0],
  ["the budget exhausted (the first backoff)", 2, 100],
  ["one backoff spent (doubled)", 3, 200],
  ["long past the budget (capped at maxBackoffMs)", 5, 400],
];

describe.each(EXIT_KINDS)("%s", (_, kind) => {
  function endCurrentChild(harness: Harness): SupervisedExit {
    if (kind.ready) harness.child.ready();
    const child = harness.child;
    kind.end(harness);
    expect(child.exited).toEqual(kind.exit);
    return harness.exits.at(-1) as SupervisedExit;
  }

  it.each(BUDGET)(
    "with %s (%i crashes before), the owner idle: a crash, restarted after %i ms",
    (_, before, delayMs) => {
      const harness = Harness.afterCrashes(before);
      const exit = endCurrentChild(harness);
      expect({ how: exit.how, beforeReady: exit.beforeReady, exit: exit.exit, why: exit.why }).toEqual({
        how: "crashed",
        beforeReady: !kind.ready,
        exit: kind.exit,
        why: kind.why,
      });
      expect({ restarts: harness.supervisor.restarts, consecutive: harness.supervisor.consecutiveCrashes }).toEqual({
        restarts: before + 1,
        consecutive: before + 1,
      });
      harness.expectRestartAfter(delayMs);
      harness.child.ready();
      expect(harness.supervisor.status).toBe("running");
    },
  );

  it.each([
    ["within the budget", 0, 0],
    ["past the budget", 2, 100],
  ])("%s while the owner holds starts (a reload): no child until resume(), then one at once", (_, before, delayMs) => {
    const harness = Harness.afterCrashes(before);
    harness.supervisor.hold();
    endCurrentChild(harness);
    expect(harness.supervisor.restarts).toBe(before + 1);
    expect(harness.clock.pendingDelays()).toEqual(delayMs === 0 ? [] : [delayMs]);
    harness.clock.advance(10 * POLICY.maxBackoffMs);
    expect({ status: harness.supervisor.status, spawns: harness.spawns }).toEqual({
      status: "crashed",
      spawns: before + 1,
    });
    harness.supervisor.resume();
    expect({ status: harness.supervisor.status, spawns: harness.spawns }).toEqual({
      status: "spawning",
      spawns: before + 2,
    });
  });

  it.each([
    ["within the budget", 0],
    ["past the budget", 2],
  ])("%s once the owner closed it (gone from the config): counted, never restarted", (_, before) => {
    const harness = Harness.afterCrashes(before);
    harness.supervisor.close();
    endCurrentChild(harness);
    expect({ status: harness.supervisor.status, pending: harness.clock.pendingDelays() }).toEqual({
      status: "crashed",
      pending: [],
    });
    harness.clock.advance(10 * POLICY.maxBackoffMs);
    harness.supervisor.kick();
    expect({
      status: harness.supervisor.status,
      restarts: harness.supervisor.restarts,
      spawns: harness.spawns,
      pending: harness.clock.pendingDelays(),
    }).toEqual({ status: "crashed", restarts: before + 1, spawns: before + 1, pending: [] });
  });
});

describe("a child the owner stops (ask, wait, then kill)", () => {
  const ENDINGS: [string, boolean, (h: Harness) => void, ChildExit][] = [
    ["exits 0 after its shutdown_ack", true, (h) => h.child.exit({ code: 0, signal: null }), { code: 0, signal: null }],
    ["crashes while draining", true, (h) => h.child.crash(), { code: 1, signal: null }],
    [
      "is SIGKILLed when the grace period is over",
      true,
      (h) => h.clock.advance(GRACE_MS),
      { code: null, signal: "SIGKILL" },
    ],
    ["exits before it was ready", false, (h) => h.child.crash(), { code: 1, signal: null }],
  ];

  it.each(ENDINGS)(
    "that %s is stopped, not restarted, and the crash budget is untouched",
    async (_, ready, end, exit) => {
      const harness = Harness.afterCrashes(2);
      if (ready) harness.child.ready();
      const child = harness.child;
      const stopped = harness.supervisor.stop({ reason: "test", gracePeriodMs: GRACE_MS });
      expect(harness.supervisor.status).toBe("draining");
      expect(child.sent.map((message) => message.type)).toContain("shutdown");
      harness.clock.advance(GRACE_MS - 1);
      expect(child.exited).toBeUndefined();
      end(harness);
      await stopped;
      expect(child.exited).toEqual(exit);
      expect({
        how: harness.exits.at(-1)?.how,
        status: harness.supervisor.status,
        restarts: harness.supervisor.restarts,
      }).toEqual({ how: "stopped", status: "terminated", restarts: 2 });
      harness.clock.advance(10 * POLICY.maxBackoffMs);
      expect({ spawns: harness.spawns, consecutive: harness.supervisor.consecutiveCrashes }).toEqual({
        spawns: 3,
        consecutive: 2,
      });
    },
  );

  it("starts a new child at once after the stop when the owner still has work", async () => {
    const harness = Harness.afterCrashes(0);
    harness.child.ready();
    const stopped = harness.supervisor.stop({ reason: "reload", gracePeriodMs: GRACE_MS });
    harness.work = true;
    harness.child.exit({ code: 0, signal: null });
    await stopped;
    expect({ how: harness.exits.at(-1)?.how, status: harness.supervisor.status, spawns: harness.spawns }).toEqual({
      how: "stopped",
      status: "spawning",
      spawns: 2,
    });
  });

  it("stops a child in backoff at once: no child, no timer, terminated", async () => {
    const harness = Harness.afterCrashes(2);
    harness.child.crash();
    expect(harness.supervisor.status).toBe("crashLoopBackOff");
    await harness.supervisor.stop({ reason: "test", gracePeriodMs: GRACE_MS });
    expect({
      status: harness.supervisor.status,
      pending: harness.clock.pendingDelays(),
      spawns: harness.spawns,
    }).toEqual({
      status: "terminated",
      pending: [],
      spawns: 3,
    });
  });
});

describe("a child that leaves on its own (shutdown_ack unasked: a SIGTERM from outside)", () => {
  it.each([
    ["after ready, the owner idle", true, false],
    ["after ready, the owner with work", true, true],
    ["before ready, the owner idle (the start it was spawned for is forgotten)", false, false],
  ])("%s: not restarted until the owner asks again", (_, ready, work) => {
    const harness = Harness.afterCrashes(1);
    harness.work = work;
    if (ready) harness.child.ready();
    harness.child.emit("shutdown_ack", { reason: "SIGTERM" });
    harness.child.exit({ code: 0, signal: null });
    harness.clock.advance(10 * POLICY.maxBackoffMs);
    expect({
      how: harness.exits.at(-1)?.how,
      beforeReady: harness.exits.at(-1)?.beforeReady,
      status: harness.supervisor.status,
      spawns: harness.spawns,
      restarts: harness.supervisor.restarts,
    }).toEqual({ how: "left", beforeReady: !ready, status: "terminated", spawns: 2, restarts: 1 });
    harness.supervisor.kick();
    expect(harness.spawns).toBe(work ? 3 : 2);
  });
});

describe("the restart budget", () => {
  it("starts afresh when the owner reports progress (healthy): the next crash restarts at once", () => {
    const harness = Harness.afterCrashes(2);
    harness.child.ready();
    harness.supervisor.healthy();
    harness.child.crash();
    harness.expectRestartAfter(0);
    expect({ restarts: harness.supervisor.restarts, consecutive: harness.supervisor.consecutiveCrashes }).toEqual({
      restarts: 3,
      consecutive: 1,
    });
  });

  it.each([
    ["a child up for less than stableAfterMs", 999, 100],
    ["a child up for stableAfterMs", 1000, 0],
  ])("%s: the next crash waits %i ms", (_, upMs, delayMs) => {
    const harness = Harness.afterCrashes(2, { spec: { stableAfterMs: 1000 } });
    harness.child.ready();
    harness.clock.advance(upMs);
    harness.child.crash();
    harness.expectRestartAfter(delayMs);
  });

  it("is not reset by a child that never became ready, however long it took", () => {
    const harness = Harness.afterCrashes(2, { spec: { stableAfterMs: 100, readyTimeoutMs: 10_000 } });
    harness.clock.advance(5000);
    harness.child.crash();
    harness.expectRestartAfter(100);
  });

  it("backs off from the first crash of a child its owner gives up on", () => {
    const harness = Harness.afterCrashes(0);
    harness.givenUp = true;
    harness.child.ready();
    harness.child.crash();
    harness.expectRestartAfter(100);
  });
});

describe("a spawn that fails (no binary, no memory)", () => {
  it.each([
    ["once", 1, 0],
    ["past the budget", 3, 100],
  ])(
    "%s is a crash before ready with E_SPAWN_FAILED, restarted after the budget's delay",
    async (_, failures, delayMs) => {
      const harness = new Harness({ failingSpawns: failures });
      harness.supervisor.ensureRunning();
      for (let tick = 0; tick < 10; tick++) await Promise.resolve();
      expect(harness.exits).toHaveLength(failures);
      for (const exit of harness.exits)
        expect({ how: exit.how, beforeReady: exit.beforeReady, child: exit.child, cause: exit.cause?.code }).toEqual({
          how: "crashed",
          beforeReady: true,
          child: undefined,
          cause: "E_SPAWN_FAILED",
        });
      expect(harness.supervisor.restarts).toBe(failures);
      harness.expectRestartAfter(delayMs);
      expect(harness.spawns).toBe(1);
    },
  );
});
