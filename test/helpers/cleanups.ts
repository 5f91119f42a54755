/**
 * Per-test teardown for tests that start real processes, servers and temp dirs: `const defer = useCleanups()`
 * at the top of a test file registers one afterEach that runs what the test deferred, last deferred first (a
 * child is killed before the server it talks to closes and before its directories go), even when the test
 * failed; every cleanup runs, and the ones that threw fail the test together. `killChild` is the cleanup
 * deferred most.
 *
 * Such a file also gets real-process time limits (`realProcessTimeouts`): bun's 5 s default is hit on a loaded
 * 2-core CI by tests that spawn Bun children (a child's start alone can take seconds there), so the file's tests
 * and its cleanups get REAL_PROCESS_TIMEOUT_MS. A hang still fails, only later; a test that names its own
 * limit keeps it.
 */
import { afterEach, setDefaultTimeout } from "bun:test";

/** The default limit of a test (and of its cleanups) that starts real processes. */
export const REAL_PROCESS_TIMEOUT_MS = 30_000;

/** Gives the calling test file's tests without a limit of their own REAL_PROCESS_TIMEOUT_MS (per file in bun). */
export function realProcessTimeouts(): void {
  setDefaultTimeout(REAL_PROCESS_TIMEOUT_MS);
}

export type Cleanup = () => Promise<void> | void;
export type Defer = (cleanup: Cleanup) => void;

export function useCleanups(): Defer {
  realProcessTimeouts();
  const cleanups: Cleanup[] = [];
  afterEach(async () => {
    const errors: unknown[] = [];
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} cleanups failed`);
  }, REAL_PROCESS_TIMEOUT_MS);
  return (cleanup) => void cleanups.push(cleanup);
}

/** The cleanup for a child process: SIGKILL, then wait until it has exited. */
export function killChild(child: { kill(signal?: number): void; exited: Promise<unknown> }): Cleanup {
  return async () => {
    child.kill(9);
    await child.exited;
  };
}
