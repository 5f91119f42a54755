/**
 * A `fresh` restart of an instance no node runs, made cluster-wide: its conversation is cleared in its state log,
 * not only in each node's local copy, so whichever node claims it next starts from an empty conversation. The node
 * claims the instance's lease for this alone (the same atomic create as any claim: when another node holds it, that
 * node runs the instance and its own relayed restart clears it), takes the log (the fence), replays it, appends the
 * clear, compacts the log so the old conversation leaves it, and releases the lease. Events and their answers stay.
 */
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { InstanceRef, Store } from "../../store/store.ts";
import type { ClusterNames } from "../nats/names.ts";
import type { InstanceStateLog } from "../../store/nats/index.ts";
import type { LeaseTable } from "../lease/lease-table.ts";

export interface ClearUnownedOptions {
  leases: Pick<LeaseTable, "claim" | "release">;
  names: Pick<ClusterNames, "instanceLeaseKey">;
  log: Pick<InstanceStateLog, "clearUnowned">;
  /** This node's name (the lease's owner while it clears). */
  node: string;
  /** This node's embedded store: the log is replayed into it, then cleared. */
  local: Store;
  logger: Logger;
}

/** `cleared`: the log now ends with an empty conversation; `held`: another node holds the instance; `failed`: logged. */
export async function clearUnownedInstance(
  ref: InstanceRef,
  options: ClearUnownedOptions,
): Promise<"cleared" | "held" | "failed"> {
  const { leases, names, log, node, local, logger } = options;
  const where = { agent: ref.agent, instanceKey: ref.instanceKey };
  try {
    const claimed = await leases.claim(names.instanceLeaseKey(ref.agent, ref.instanceKey), node, { clearing: true });
    if (claimed.status !== "claimed") return "held";
    try {
      if (!(await log.clearUnowned(ref, claimed.lease, local))) return "held";
      logger.info(where, "cleared the conversation of an instance no node runs in its state log (fresh restart)");
      return "cleared";
    } finally {
      await leases.release(claimed.lease);
    }
  } catch (error) {
    logger.error(
      { ...where, error: describe(error) },
      "could not clear an instance's conversation in its state log; the node that claims it next replays its old conversation",
    );
    return "failed";
  }
}
