/**
 * An instance's store faults (on-child-message.ts):
 * - `stopped`: the children it stopped because the store refused their turn's commit (their exit is a store fault,
 *   not a crash of their event);
 * - `holdsUnsaved`: the children whose memory holds something the store refused: a step of theirs (a child runs an
 *   unsynced step's calls without waiting for its commit), an event handed to them before its insert's commit, or a
 *   reply from a turn whose commit was refused. Nothing more of theirs is stored or run (their commits and calls are
 *   refused), so their turn ends unsaved and they start again from the store;
 * - `inARow`: the faults in a row, for the backoff.
 */
import type { ChildProcess } from "../../supervision/child-process.ts";
import { StoreFaultCount } from "../../supervision/restart-policy.ts";

export class StoreFaults {
  readonly stopped = new WeakSet<ChildProcess>();
  readonly holdsUnsaved = new WeakSet<ChildProcess>();
  readonly inARow = new StoreFaultCount();

  /** Stops `child` because the store refused a write its memory already holds: a store fault, not a crash. */
  stop(child: ChildProcess): void {
    this.stopped.add(child);
    child.kill();
  }
}
