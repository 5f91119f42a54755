/**
 * A part of a cluster node that exists only once the node is attached to its orchestrator (the cluster reads, the
 * live events), reached before that: the daemon wires its HTTP API before it attaches the node, so what it hands
 * the API looks the part up at each call and refuses one made too early with E_CLUSTER_NOT_ATTACHED.
 */
import { SystemError } from "../../shared/errors.ts";

/** `current`'s part, or the refusal naming `what` was asked too early. */
export function whenAttached<T>(current: () => T | undefined, what: string): () => T {
  return () => {
    const now = current();
    if (now === undefined)
      throw new SystemError("E_CLUSTER_NOT_ATTACHED", `${what} before the node was attached to its orchestrator`);
    return now;
  };
}
