/**
 * This node's part of the cluster-wide reads, served to the other nodes as node requests: each answer read from
 * this node's host and kept within what one NATS message carries (answer-budget.ts). Runtime events are cut to fit
 * (`more`), a conversation is sent in parts (`next`), and anything else too large, or one message that alone
 * outweighs the budget, is refused by its size (`E_CLUSTER_ANSWER_TOO_LARGE`).
 */
import { fitByBytes, withinBudget } from "../answers/answer-budget.ts";
import type { ClusterMessenger, Served } from "../nats/messenger.ts";
import { ownCopy, ownHeld, type Runs } from "./held-reads.ts";
import type { NodeEventQuery, NodeReadApi, ReadHost } from "./reads.ts";

/** Answers the other nodes' reads from this node's host; the subscriptions are the caller's to stop. */
export function serveReads(options: {
  node: string;
  messenger: ClusterMessenger<NodeReadApi>;
  host: ReadHost;
  /** Whether this node runs an instance (its held calls are answered only for those). */
  runs: Runs;
  /** The most bytes of JSON one answer may hold. */
  answerBytes: number;
}): Promise<Served[]> {
  const { messenger, node, host } = options;
  const budget = options.answerBytes;
  // Room for the fields around a list that is cut to fit.
  const listBudget = budget - 256;
  const bounded = <T>(what: string, answer: T) => withinBudget({ answer, budget, what: `node ${node}'s ${what}` });
  return Promise.all([
    messenger.serveNode(node, "processes", async () => bounded("process table", { processes: host.processes() })),
    messenger.serveNode(node, "instances", async () =>
      bounded("instance table", { instances: await host.instances() }),
    ),
    messenger.serveNode(node, "runtime-events", async (request) => {
      const query = nodeEventQuery(request);
      const fitted = fitByBytes(
        await host.runtimeEvents(query),
        listBudget,
        query.limit === undefined ? "oldest" : "newest",
      );
      return bounded("runtime events", { events: fitted.items, ...(fitted.more ? { more: true } : {}) });
    }),
    messenger.serveNode(node, "conversation", async ({ agent, instanceKey, from }) => {
      const stored = await host.conversation(String(agent), String(instanceKey));
      const start = typeof from === "number" && Number.isInteger(from) && from > 0 ? from : 0;
      const part = fitByBytes(stored.messages.slice(start), listBudget, "oldest");
      const updatedAt = stored.updatedAt === undefined ? {} : { updatedAt: stored.updatedAt };
      // A message that alone outweighs one NATS message cannot be sent in parts: it is refused, by its size.
      if (part.more && part.items.length === 0)
        return bounded(`message ${start} of ${agent}/${instanceKey}`, {
          messages: stored.messages.slice(start, start + 1),
          ...updatedAt,
        });
      return bounded(`conversation of ${agent}/${instanceKey}`, {
        messages: part.items,
        ...updatedAt,
        ...(part.more ? { next: start + part.items.length } : {}),
      });
    }),
    messenger.serveNode(node, "event-state", async ({ eventId }) =>
      bounded("event state", { state: (await host.eventState(String(eventId))) ?? null }),
    ),
    messenger.serveNode(node, "held", async () => bounded("held calls", await ownHeld(host, options.runs))),
    messenger.serveNode(node, "approval", async ({ id }) =>
      bounded("approval", await ownCopy(host, options.runs, String(id))),
    ),
  ]);
}

/** The filters another node sent, kept to the fields a query has (the request crossed the wire as JSON). */
function nodeEventQuery(query: NodeEventQuery): NodeEventQuery {
  const { agent, instanceKey, turnId, traceId, after, limit } = query;
  return {
    ...(typeof agent === "string" ? { agent } : {}),
    ...(typeof instanceKey === "string" ? { instanceKey } : {}),
    ...(typeof turnId === "string" ? { turnId } : {}),
    ...(typeof traceId === "string" ? { traceId } : {}),
    ...(typeof after === "number" ? { after } : {}),
    ...(typeof limit === "number" ? { limit } : {}),
  };
}
