/**
 * An instance's store faults (on-child-message.ts): the children it stopped because the store refused their turn's
 * commit (their exit is a store fault, not a crash of their event), and the faults in a row, for the backoff.
 */
import type { ChildProcess } from "../../supervision/child-process.ts";
import { StoreFaultCount } from "../../supervision/restart-policy.ts";

export class StoreFaults {
  readonly stopped = new WeakSet<ChildProcess>();
  readonly inARow = new StoreFaultCount();
}
