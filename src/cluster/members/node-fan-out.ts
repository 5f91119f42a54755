/**
 * Asking every node of the cluster the same question, bounded in time: this node answers from its own process,
 * every other node over the messenger, all at once. Each answer comes back with the node that gave it, and each node
 * that did not answer (timeout, gone, refused, or this node's connection lost) is named with why, so a cluster-wide
 * read says which nodes it is missing instead of silently leaving them out (GET /v1/processes, /v1/instances, the
 * runtime events, a conversation).
 */
import type { RequestOutcome } from "../nats/messenger.ts";

/** A node whose answer a cluster-wide read lacks, and why: the messenger's outcome (or `failed`: this node's own read threw). */
export interface UnansweredNode {
  node: string;
  status: "timeout" | "no_responders" | "unavailable" | "refused" | "failed";
}

export interface FanOutAnswers<T> {
  /** In the order of `nodes`. */
  answers: Array<{ node: string; value: T }>;
  unanswered: UnansweredNode[];
}

export interface FanOutOptions<T> {
  /** This node's name: answered by `local`, never over NATS. */
  self: string;
  /** Every node to ask (this one included or not). */
  nodes: readonly string[];
  local: () => Promise<T>;
  /** Asks one other node; the messenger bounds it by its timeout. */
  remote: (node: string) => Promise<RequestOutcome<T>>;
}

export async function fanOut<T>(options: FanOutOptions<T>): Promise<FanOutAnswers<T>> {
  const nodes = [...new Set(options.nodes)];
  const outcomes = await Promise.all(
    nodes.map(async (node): Promise<RequestOutcome<T> | { status: "failed" }> => {
      if (node !== options.self) return options.remote(node);
      try {
        return { status: "ok", value: await options.local() };
      } catch {
        return { status: "failed" };
      }
    }),
  );
  const answers: Array<{ node: string; value: T }> = [];
  const unanswered: UnansweredNode[] = [];
  outcomes.forEach((outcome, index) => {
    const node = nodes[index] as string;
    if (outcome.status === "ok") answers.push({ node, value: outcome.value });
    else unanswered.push({ node, status: outcome.status });
  });
  return { answers, unanswered };
}
