/**
 * The restart policy as pure functions (supervision as data, OTP style): what to do after a child
 * crash given how many crashes happened in a row, and when an in-flight event counts as poison.
 * A crash restarts at once up to `maxConsecutiveCrashes`; past that the child waits `initialBackoffMs`,
 * doubling per further crash up to `maxBackoffMs`. A completed turn resets the count (the supervisor's job). A
 * child that ended because the store refused its commit is no crash of its event and always waits (storeFaultDelay).
 */
import type { SwarmPolicy } from "../config/types.ts";

export type RestartPolicy = SwarmPolicy["restart"];

/** Defaults of SPEC §1: 5 crashes, 1 s first backoff, 5 min cap. */
export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  maxConsecutiveCrashes: 5,
  initialBackoffMs: 1000,
  maxBackoffMs: 300_000,
};

/** Delay before restarting after the `consecutiveCrashes`-th crash in a row (1-based); 0 means at once. */
export function backoffDelay(options: { consecutiveCrashes: number; policy: RestartPolicy }): number {
  const { consecutiveCrashes, policy } = options;
  const over = consecutiveCrashes - policy.maxConsecutiveCrashes;
  if (over <= 0) return 0;
  // 2 ** (over - 1) overflows to Infinity for huge counts; Math.min caps it.
  return Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** Math.min(over - 1, 1024));
}

/** The longest wait after a store fault: a store that came back (space freed) is used again within this. */
export const STORE_FAULT_MAX_BACKOFF_MS = 30_000;

/** Store faults further apart than this start the count again (the store was fine in between). */
export const STORE_FAULT_MEMORY_MS = 60_000;

/**
 * Delay before restarting after the `storeFaults`-th store fault in a row (the store refused a commit): never at
 * once, since restarting cannot help until the disk or the cluster does. At least 1 s (or the policy's
 * `initialBackoffMs` when longer), doubling, capped at STORE_FAULT_MAX_BACKOFF_MS.
 */
export function storeFaultDelay(options: { storeFaults: number; policy: RestartPolicy }): number {
  const first = Math.max(1000, options.policy.initialBackoffMs);
  const cap = Math.max(first, STORE_FAULT_MAX_BACKOFF_MS);
  return Math.min(cap, first * 2 ** Math.min(Math.max(0, options.storeFaults - 1), 30));
}

/**
 * The store faults in a row of one child's owner: counted on while they come within STORE_FAULT_MEMORY_MS of each
 * other, whatever the child did in between (a turn that committed between two faults of a disk still full does not
 * make the next restart immediate), and from 1 again after a quiet spell.
 */
export class StoreFaultCount {
  private count = 0;
  private lastAt = Number.NEGATIVE_INFINITY;

  /** Counts a fault at `now` (epoch ms); returns the faults in a row, this one included. */
  fault(now: number): number {
    this.count = now - this.lastAt <= STORE_FAULT_MEMORY_MS ? this.count + 1 : 1;
    this.lastAt = now;
    return this.count;
  }
}

export type CrashDecision = { action: "restart" } | { action: "backoff"; delayMs: number };

/**
 * What the supervisor does after a crash: restart now, or enter `crashLoopBackOff` for `delayMs`. An
 * instance given up on (`givenUp`: it cannot start) backs off at least the first step, never restarting in
 * a tight loop; a child that ended on a store fault (`storeFaults`) always backs off (storeFaultDelay).
 */
export function decideAfterCrash(options: {
  consecutiveCrashes: number;
  policy: RestartPolicy;
  givenUp?: boolean;
  /** The exit was the `storeFaults`-th store fault in a row (StoreFaultCount). */
  storeFaults?: number;
}): CrashDecision {
  const { policy, storeFaults } = options;
  if (storeFaults !== undefined && storeFaults > 0)
    return { action: "backoff", delayMs: storeFaultDelay({ storeFaults, policy }) };
  const consecutiveCrashes = options.givenUp
    ? Math.max(options.consecutiveCrashes, policy.maxConsecutiveCrashes + 1)
    : options.consecutiveCrashes;
  const delayMs = backoffDelay({ consecutiveCrashes, policy });
  return delayMs === 0 ? { action: "restart" } : { action: "backoff", delayMs };
}

/** An event whose deliveries crashed the child `crashes` times is given up (`E_AGENT_CRASHED`). */
export function isPoison(options: { crashes: number; policy: RestartPolicy }): boolean {
  return options.crashes >= Math.max(1, options.policy.maxConsecutiveCrashes);
}
