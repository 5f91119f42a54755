/**
 * Start failures of one instance: children in a row that exited before `ready`, the `fatal` report the
 * current child sent, and the verdict. Waiting events cannot be delivered to a child that never starts, so
 * after `maxConsecutiveCrashes` such starts, or at once when the child reported a configuration error
 * (E_CONFIG_*) or its required sandbox is refused by the machine (E_AGENT_SANDBOX_UNAVAILABLE): retrying cannot help, the instance is `unstartable`: its waiting events are given up as
 * E_AGENT_CRASHED with the cause. `ready` and a deliberate stop (reload, shutdown) clear it.
 */
import type { RestartPolicy } from "../../supervision/restart-policy.ts";

export interface StartFailureCause {
  code: string;
  message: string;
}

export class StartFailures {
  private count = 0;
  private fatal: StartFailureCause | undefined;
  private verdict: StartFailureCause | undefined;

  /** Why the instance cannot start, once it was given up on; undefined while starts may still succeed. */
  get unstartable(): StartFailureCause | undefined {
    return this.verdict;
  }

  /** A new child was spawned: a `fatal` of the previous one no longer applies. */
  spawned(): void {
    this.fatal = undefined;
  }

  /** The current child sent `fatal` (it exits next). */
  reportFatal(cause: StartFailureCause): void {
    this.fatal = cause;
  }

  /** The child became ready, or the instance was stopped on purpose: the next start counts afresh. */
  reset(): void {
    this.count = 0;
    this.fatal = undefined;
    this.verdict = undefined;
  }

  /**
   * A child exited before `ready` (or could not be spawned: `cause`). Returns true when the instance is now
   * given up on (`unstartable` says why).
   */
  failed(options: {
    address: string;
    exit: { code: number | null; signal: string | null };
    cause?: StartFailureCause;
    policy: RestartPolicy;
  }): boolean {
    this.count += 1;
    const { exit } = options;
    const cause = options.cause ??
      this.fatal ?? {
        code: "E_AGENT_START_FAILED",
        message: `the child exited (${exit.signal ?? `code ${exit.code}`}) before it was ready`,
      };
    this.fatal = undefined;
    const final = cause.code.startsWith("E_CONFIG_") || cause.code === "E_AGENT_SANDBOX_UNAVAILABLE";
    if (!final && this.count < Math.max(1, options.policy.maxConsecutiveCrashes)) return false;
    this.verdict = {
      code: cause.code,
      message: `${options.address} could not start ${this.count} time(s) in a row: ${cause.code}: ${cause.message}`,
    };
    return true;
  }
}
