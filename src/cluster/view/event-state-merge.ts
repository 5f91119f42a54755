/**
 * Where an accepted event stands, out of every node's answer: in a cluster the node that accepted an event keeps no
 * record of it (the intake stream and the owner's store do), and an instance that moved leaves an older record on
 * its earlier owner, so the answer is the furthest state any node knows (answered, then running, then accepted),
 * with the node that knows it.
 */
import type { EventState } from "../../orchestrator/routing/event-state.ts";

export type NodeEventState = EventState & { node: string };

const RANK: Record<string, number> = { accepted: 0, running: 1 };

export function furthestEventState(
  answers: ReadonlyArray<{ node: string; value: EventState | undefined }>,
): NodeEventState | undefined {
  let best: NodeEventState | undefined;
  for (const { node, value } of answers) {
    if (value === undefined) continue;
    if (best === undefined || rank(value) > rank(best)) best = { ...value, node };
  }
  return best;
}

/** An answered event (any outcome status) is past every state before it. */
function rank(state: EventState): number {
  return RANK[state.state] ?? 2;
}
