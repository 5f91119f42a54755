/**
 * A manual Clock for tests: time moves only when the test calls `advance`, and timers due by then run
 * in order of their due time. Supervisor backoff, idle reaping and request deadlines are tested in
 * milliseconds with it.
 */
import type { Clock, TimerHandle } from "../../src/shared/clock.ts";

interface ManualTimer {
  id: number;
  due: number;
  callback: () => void;
}

export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private timers = new Map<number, ManualTimer>();

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    if (!Number.isFinite(ms) || ms < 0)
      throw new Error(`ManualClock.setTimeout: expected a finite delay >= 0, got ${ms}`);
    const timer = { id: this.nextId++, due: this.current + ms, callback };
    this.timers.set(timer.id, timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle.id as number);
  }

  /** Pending timers' delays from now, sorted: what the code under test is waiting for. */
  pendingDelays(): number[] {
    return [...this.timers.values()].map((timer) => timer.due - this.current).sort((a, b) => a - b);
  }

  /** Moves time forward by `ms`, running every timer due on the way (including ones those timers set). */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = [...this.timers.values()]
        .filter((timer) => timer.due <= target)
        .sort((a, b) => a.due - b.due || a.id - b.id)[0];
      if (!next) break;
      this.timers.delete(next.id);
      this.current = next.due;
      next.callback();
    }
    this.current = target;
  }
}
