/**
 * One instance table out of every node's: an instance a node ran before another took it over stays in the old
 * node's store (stale, terminated), so each instance gets one row, from the node that runs it (a supervised,
 * non-terminated row), else from the node whose copy changed last; each row names its node. The same rule picks
 * the freshest copy of a conversation no live node owns.
 */
import type { InstanceRow } from "../../orchestrator/instances/stored-instances.ts";

export type NodeInstanceRow = InstanceRow & { node: string };

export function mergeInstanceRows(
  answers: ReadonlyArray<{ node: string; value: readonly InstanceRow[] }>,
): NodeInstanceRow[] {
  const chosen = new Map<string, NodeInstanceRow>();
  for (const { node, value } of answers) {
    for (const row of value) {
      const key = `${row.agent}\u0000${row.instanceKey}`;
      const candidate = { ...row, node };
      const current = chosen.get(key);
      if (current === undefined || fresher(candidate, current)) chosen.set(key, candidate);
    }
  }
  return [...chosen.values()].sort(
    (a, b) => a.agent.localeCompare(b.agent) || a.instanceKey.localeCompare(b.instanceKey),
  );
}

/** A stored copy of one instance's conversation on one node. */
export interface ConversationCopy<M> {
  node: string;
  messages: readonly M[];
  /** Epoch ms of the copy's last change on its node; absent: the node has no state for it. */
  updatedAt?: number;
}

/** The freshest non-empty copy: the latest change, then the longer conversation, then the node's name. */
export function freshestConversation<M>(copies: ReadonlyArray<ConversationCopy<M>>): ConversationCopy<M> | undefined {
  let best: ConversationCopy<M> | undefined;
  for (const copy of copies) {
    if (copy.messages.length === 0) continue;
    if (best === undefined) best = copy;
    else {
      const order =
        (copy.updatedAt ?? 0) - (best.updatedAt ?? 0) ||
        copy.messages.length - best.messages.length ||
        best.node.localeCompare(copy.node);
      if (order > 0) best = copy;
    }
  }
  return best;
}

/** Whether `a` describes the instance better than `b`: running beats terminated, then the later change, then the node's name. */
function fresher(a: NodeInstanceRow, b: NodeInstanceRow): boolean {
  const running = Number(a.status !== "terminated") - Number(b.status !== "terminated");
  if (running !== 0) return running > 0;
  const changed = (a.updatedAt ?? 0) - (b.updatedAt ?? 0);
  if (changed !== 0) return changed > 0;
  return a.node.localeCompare(b.node) < 0;
}
