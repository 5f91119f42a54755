/**
 * The orchestrator's side of an agent child's state. A new child is handed what the store holds (`hydrateChild`).
 * A step an agent child commits in the middle of a turn (its messages before the step's tools run, a tool's
 * completion, its extensions' state): made durable in the store, then answered `committed` with the child's
 * sequence number, so the child runs nothing that depends on it before it is on disk. A store that cannot write
 * answers the code and cause; the child then ends without answering its event (agent/child/agent-child.ts).
 * A turn's end is committed together with the outcome that answers its event (`commitTurn`).
 */
import type { InstanceCommit } from "../../protocol/instance-state.ts";
import type { ChildToParent } from "../../protocol/ipc-messages.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ChildProcess } from "../../supervision/child-process.ts";
import type { InstanceRef, Store } from "../../store/store.ts";

export function commitStep(options: { store: Store; ref: InstanceRef; child: ChildProcess; commit: ChildToParent["commit"] }): void {
  const { seq, ...commit } = options.commit;
  options.store.commit(options.ref, commit).then(
    () => options.child.send("committed", { seq }),
    (error: unknown) => options.child.send("committed", { seq, error: { code: "E_STORE_WRITE_FAILED", message: describe(error).message } }),
  );
}

/** Resolves once the turn's last changes and its outcome are durable; rejects with the store's error described. */
export async function commitTurn(options: { store: Store; ref: InstanceRef; commit: InstanceCommit; outcome: TurnOutcome }): Promise<void> {
  try {
    await options.store.commit(options.ref, options.commit, options.outcome);
  } catch (error) {
    throw new Error(describe(error).message);
  }
}

/**
 * Hands a new child its state. The read may end after the child did (it failed to start): only a child still
 * current (`current()`) gets it. One the store cannot read is stopped rather than started on an empty conversation.
 */
export function hydrateChild(options: { store: Store; ref: InstanceRef; child: ChildProcess; current: () => boolean; logger: Logger }): void {
  options.store.instanceState(options.ref).then(
    (state) => {
      if (options.current()) options.child.send("hydrate", state);
    },
    (error: unknown) => {
      options.logger.error({ error: describe(error).message }, "could not read the instance's state; its child is stopped");
      options.child.kill();
    },
  );
}
