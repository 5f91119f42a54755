/**
 * An instance's store faults (on-child-message.ts): the children it stopped because the store refused their turn's
 * commit (their exit is a store fault, not a crash of their event), the children whose step commit the store refused
 * (a child runs an unsynced step's calls without waiting for its commit: what those calls ask of the orchestrator
 * after a refused step is refused too, so nothing is delegated from a step the store lacks), and the faults in a row,
 * for the backoff.
 */
import type { ChildProcess } from "../../supervision/child-process.ts";
import { StoreFaultCount } from "../../supervision/restart-policy.ts";

export class StoreFaults {
  readonly stopped = new WeakSet<ChildProcess>();
  readonly refusedStep = new WeakSet<ChildProcess>();
  readonly inARow = new StoreFaultCount();
}
