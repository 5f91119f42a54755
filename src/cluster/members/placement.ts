/**
 * Where an unowned instance should run: a pure choice among live nodes with room. The least loaded node wins,
 * load being the share of its `maxProcesses` in use; nodes equally loaded are ordered by a hash of (node,
 * instance) (rendezvous hashing), so nodes deciding at the same moment from the same view spread their picks
 * instead of all choosing the same node, and the same instance prefers the same node run after run.
 */
import { createHash } from "node:crypto";

export interface PlacementCandidate {
  node: string;
  maxProcesses: number;
  /** Instances the node runs or holds leases for now. */
  live: number;
}

export interface ChooseNodeOptions {
  /** The instance to place (its lease key, or `agent/instanceKey`). */
  instance: string;
  candidates: readonly PlacementCandidate[];
  /** Nodes to pass over (a node that did not answer a moment ago). */
  exclude?: ReadonlySet<string>;
}

/** The node to run `instance` on; undefined when no candidate has room. */
export function chooseNode(options: ChooseNodeOptions): string | undefined {
  let best: PlacementCandidate | undefined;
  let bestRank = "";
  for (const candidate of options.candidates) {
    if (options.exclude?.has(candidate.node)) continue;
    if (!(candidate.maxProcesses > 0) || candidate.live >= candidate.maxProcesses) continue;
    const rank = rendezvousRank(candidate.node, options.instance);
    if (best === undefined) {
      best = candidate;
      bestRank = rank;
      continue;
    }
    // Compare live/max without division: a.live * b.max vs b.live * a.max.
    const order = candidate.live * best.maxProcesses - best.live * candidate.maxProcesses;
    if (order < 0 || (order === 0 && rank > bestRank)) {
      best = candidate;
      bestRank = rank;
    }
  }
  return best?.node;
}

function rendezvousRank(node: string, instance: string): string {
  return createHash("sha256").update(node).update("\0").update(instance).digest("hex");
}

/**
 * The candidates a node sees: every live member that is not draining (it refused the cluster's last reload and runs
 * another configuration), with its capacity, its load being the larger of what its last heartbeat said and the
 * leases the lease watch counts for it (the watch is current, the heartbeat may lag).
 */
export function placementCandidates(
  members: readonly { node: string; maxProcesses: number; live: number; draining?: unknown }[],
  leaseCounts: ReadonlyMap<string, number>,
): PlacementCandidate[] {
  return members
    .filter((member) => member.draining === undefined)
    .map((member) => ({
      node: member.node,
      maxProcesses: member.maxProcesses,
      live: Math.max(member.live, leaseCounts.get(member.node) ?? 0),
    }));
}
