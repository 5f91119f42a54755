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
