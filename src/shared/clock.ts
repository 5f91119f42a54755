/**
 * An injectable clock: production uses real time and timers, tests use a ManualClock (test/helpers)
 * so that backoff and timeouts run in milliseconds.
 */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export type TimerHandle = { readonly id: unknown };

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => ({ id: setTimeout(callback, ms) }),
  clearTimeout: (handle) => clearTimeout(handle.id as ReturnType<typeof setTimeout>),
};

/** One timer on a clock that is armed again and again: `arm` replaces a pending callback, `clear` cancels it. */
export class OneShotTimer {
  private handle: TimerHandle | undefined;

  constructor(private readonly clock: Clock) {}

  arm(ms: number, callback: () => void): void {
    this.clear();
    this.handle = this.clock.setTimeout(() => {
      this.handle = undefined;
      callback();
    }, ms);
  }

  clear(): void {
    if (this.handle) this.clock.clearTimeout(this.handle);
    this.handle = undefined;
  }
}
