/**
 * One Supervisor over the fake spawner on the manual clock, for the supervisor matrix (supervisor.test.ts): the
 * owner's hooks record every exit and answer `wanted()` and `givenUp` as the test says; a spawner can be told to
 * fail its first spawns; `afterCrashes(n)` brings a child up with n crashes of the budget spent, and
 * `expectRestartAfter(ms)` asserts that the next child is spawned exactly after that delay, not a tick before.
 */
import { expect } from "bun:test";
import { silentLogger } from "../../src/shared/logger.ts";
import type { ChildSpec, SupervisedExit } from "../../src/supervision/child-spec.ts";
import type { ChildProcessHandle, SpawnRequest } from "../../src/supervision/process-spawner.ts";
import type { RestartPolicy } from "../../src/supervision/restart-policy.ts";
import { Supervisor } from "../../src/supervision/supervisor.ts";
import { type FakeChild, FakeSpawner } from "../helpers/fake-spawner.ts";
import { ManualClock } from "../helpers/manual-clock.ts";

/** Two restarts at once, then 100, 200, 400 ms and 400 ms from then on. */
export const POLICY: RestartPolicy = { maxConsecutiveCrashes: 2, initialBackoffMs: 100, maxBackoffMs: 400 };
export const READY_TIMEOUT_MS = 500;
export const GRACE_MS = 1000;

/** A spawner whose first `failures` spawns throw (no binary, no memory). */
class FlakySpawner extends FakeSpawner {
  constructor(private failures: number) {
    super();
  }

  override spawn(request: SpawnRequest): ChildProcessHandle {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error("spawn bun ENOENT");
    }
    return super.spawn(request);
  }
}

export class Harness {
  readonly clock = new ManualClock(0);
  readonly spawner: FakeSpawner;
  readonly exits: SupervisedExit[] = [];
  readonly supervisor: Supervisor;
  /** The owner's answer to `wanted()`: it has work for a child. */
  work = false;
  /** What the owner answers to a crash: the child is given up on. */
  givenUp = false;

  constructor(options: { spec?: Partial<ChildSpec>; failingSpawns?: number } = {}) {
    this.spawner = new FlakySpawner(options.failingSpawns ?? 0);
    this.supervisor = new Supervisor({
      spec: {
        address: "worker/k",
        spawnRequest: () => ({ address: "worker/k", argv: [] }),
        readyMessage: "ready",
        readyTimeoutMs: READY_TIMEOUT_MS,
        ...options.spec,
      },
      spawner: this.spawner,
      clock: this.clock,
      logger: silentLogger(),
      policy: () => POLICY,
      hooks: {
        wanted: () => this.work,
        ready: () => {},
        message: () => {},
        exited: (exit) => {
          this.exits.push(exit);
          return { givenUp: this.givenUp };
        },
      },
    });
  }

  get spawns(): number {
    return this.spawner.children.length;
  }

  get child(): FakeChild {
    return this.spawner.children.at(-1) as FakeChild;
  }

  /** Runs the backoff out, when the supervisor is in one. */
  waitOutBackoff(): void {
    if (this.supervisor.status === "crashLoopBackOff") this.clock.advance(this.clock.pendingDelays()[0] as number);
  }

  /** A running child after `crashes` consecutive crashes (each after ready), backoffs waited out. */
  static afterCrashes(crashes: number, options: ConstructorParameters<typeof Harness>[0] = {}): Harness {
    const harness = new Harness(options);
    harness.supervisor.ensureRunning();
    for (let crash = 0; crash < crashes; crash++) {
      harness.child.ready();
      harness.child.crash();
      harness.waitOutBackoff();
    }
    expect({ spawns: harness.spawns, consecutiveCrashes: harness.supervisor.consecutiveCrashes }).toEqual({
      spawns: crashes + 1,
      consecutiveCrashes: crashes,
    });
    return harness;
  }

  /** After a crash: nothing is spawned before `delayMs`, and one child exactly then. */
  expectRestartAfter(delayMs: number): void {
    const before = this.spawns;
    if (delayMs === 0) {
      expect({ status: this.supervisor.status, spawns: this.spawns }).toEqual({ status: "spawning", spawns: before });
      return;
    }
    expect({ status: this.supervisor.status, pending: this.clock.pendingDelays() }).toEqual({
      status: "crashLoopBackOff",
      pending: [delayMs],
    });
    this.clock.advance(delayMs - 1);
    expect(this.spawns).toBe(before);
    this.clock.advance(1);
    expect({ status: this.supervisor.status, spawns: this.spawns }).toEqual({ status: "spawning", spawns: before + 1 });
  }
}
