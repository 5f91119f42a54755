/**
 * Per-test teardown for tests that start real processes, servers and temp dirs: `const defer = useCleanups()`
 * at the top of a test file registers one afterEach that runs what the test deferred, last deferred first (a
 * child is killed before the server it talks to closes and before its directories go), even when the test
 * failed; every cleanup runs, and the ones that threw fail the test together. `killChild` is the cleanup
 * deferred most.
 */
import { afterEach } from "bun:test";

export type Cleanup = () => Promise<void> | void;
export type Defer = (cleanup: Cleanup) => void;

export function useCleanups(): Defer {
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
  });
  return (cleanup) => void cleanups.push(cleanup);
}

/** The cleanup for a child process: SIGKILL, then wait until it has exited. */
export function killChild(child: { kill(signal?: number): void; exited: Promise<unknown> }): Cleanup {
  return async () => {
    child.kill(9);
    await child.exited;
  };
}
