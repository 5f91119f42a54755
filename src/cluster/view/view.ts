/**
 * The cluster seen from any node: the reads the HTTP API serves (process table, instance table, runtime events, an
 * instance's conversation, where an event stands) answered for every node at once. Each node serves its own part of
 * them to the others as node requests (`processes`, `instances`, `runtime-events`, `conversation`, `event-state`); a read asks every live member at once
 * (as a live watch of the nodes bucket shows them: member-view.ts), bounded by the messenger's timeout, merges the
 * answers (instance-rows-merge.ts, runtime-events-merge.ts) and names every node that did not answer. A conversation comes from the instance's lease holder, which is its
 * authority; when no node holds it (or the holder does not answer) from the freshest copy any node keeps. While this
 * node has lost NATS every read is its own, and the standing in /v1/processes says so. No answer is sent past what one
 * NATS message carries (answer-budget.ts): runtime events are cut to fit and paged, a conversation comes in parts,
 * and anything else too large is refused (`E_CLUSTER_ANSWER_TOO_LARGE`, the node named as `refused`).
 */
import type { Message } from "../../protocol/conversation.ts";
import type { InstanceRow } from "../../orchestrator/instances/stored-instances.ts";
import type { EventState } from "../../orchestrator/routing/event-state.ts";
import type { RuntimeEventQuery, StoredRuntimeEvent } from "../../store/store.ts";
import type { ProcessInfo } from "../../supervision/process-table.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import type { ClusterMessenger, RequestOutcome, Served } from "../nats/messenger.ts";
import type { ClusterNames } from "../nats/names.ts";
import { watchMembers } from "../members/member-view.ts";
import { answerBudget, fitByBytes, withinBudget } from "../answers/answer-budget.ts";
import { furthestEventState, type NodeEventState } from "./event-state-merge.ts";
import { freshestConversation, mergeInstanceRows, type NodeInstanceRow } from "./instance-rows-merge.ts";
import { fanOut, type UnansweredNode } from "../members/node-fan-out.ts";
import { whenAttached } from "./when-attached.ts";
import { mergeRuntimeEvents, type ClusterCursor, type NodeRuntimeEvent } from "./runtime-events-merge.ts";

/** A runtime-event query of one node's store (the swarm is the node's own). */
export type NodeEventQuery = Omit<RuntimeEventQuery, "swarm">;

/** One node's stored copy of an instance's conversation (`updatedAt` absent: it has no state for it). */
export interface StoredConversation {
  messages: Message[];
  updatedAt?: number;
}

/** What one node asks another for the cluster-wide reads. */
export type NodeReadApi = {
  processes: { request: Record<string, never>; response: { processes: ProcessInfo[] } };
  instances: { request: Record<string, never>; response: { instances: InstanceRow[] } };
  /** `more`: cut to fit one message (the oldest kept, or the newest with a `limit`). */
  "runtime-events": { request: NodeEventQuery; response: { events: StoredRuntimeEvent[]; more?: boolean } };
  /** The messages from index `from` that fit one message; `next`: where the following part starts. */
  conversation: {
    request: { agent: string; instanceKey: string; from?: number };
    response: StoredConversation & { next?: number };
  };
  "event-state": { request: { eventId: string }; response: { state: EventState | null } };
};

/** What this node reads from its own orchestrator and store. */
export interface ReadHost {
  processes(): ProcessInfo[];
  instances(): Promise<InstanceRow[]>;
  runtimeEvents(query: NodeEventQuery): Promise<StoredRuntimeEvent[]>;
  conversation(agent: string, instanceKey: string): Promise<StoredConversation>;
  eventState(eventId: string): Promise<EventState | undefined>;
}

/** A cluster-wide runtime-event query: one host's, with a cursor per node. */
export type ClusterEventQuery = Omit<NodeEventQuery, "after"> & { after?: ClusterCursor };

/** The reads the HTTP API serves in cluster mode (src/http talks to this, never to NATS). */
export interface ClusterReads {
  processes(): Promise<{ processes: Array<ProcessInfo & { node: string }>; unanswered: UnansweredNode[] }>;
  instances(): Promise<{ instances: NodeInstanceRow[]; unanswered: UnansweredNode[] }>;
  /** `more`: a node's events did not fit one page; ask again from `cursor`. */
  runtimeEvents(
    query: ClusterEventQuery,
  ): Promise<{ events: NodeRuntimeEvent[]; cursor: ClusterCursor; more: boolean; unanswered: UnansweredNode[] }>;
  /** From its lease holder, else the freshest copy; `node` absent: no node has a conversation for it. */
  conversation(
    agent: string,
    instanceKey: string,
  ): Promise<{ node?: string; messages: Message[]; unanswered: UnansweredNode[] }>;
  /** The furthest state any node knows for the event, with that node; `state` absent: no node that answered knows it. */
  eventState(eventId: string): Promise<{ state?: NodeEventState; unanswered: UnansweredNode[] }>;
}

export interface ClusterViewOptions {
  node: string;
  messenger: ClusterMessenger<NodeReadApi>;
  host: ReadHost;
  /** The live members' names (this node's included). */
  members: () => Promise<string[]>;
  /** The node holding the instance's lease, if any. */
  owner: (agent: string, instanceKey: string) => Promise<string | undefined>;
  /** False while this node has lost NATS: reads are then its own. */
  connected: () => boolean;
  /** How long a read waits for each node. Default 2000 ms. */
  timeoutMs?: number;
  /** The most bytes of JSON one answer to another node may hold. Default: answerBudget() of a 1 MiB max_payload. */
  answerBytes?: number;
}

export class ClusterView implements ClusterReads {
  private readonly timeoutMs: number;
  private readonly answerBytes: number;

  constructor(private readonly options: ClusterViewOptions) {
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.answerBytes = options.answerBytes ?? answerBudget();
  }

  /** Answers the other nodes' reads from this node's host; the subscriptions are the caller's to stop. */
  serve(): Promise<Served[]> {
    const { messenger, node, host } = this.options;
    const budget = this.answerBytes;
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
    ]);
  }

  async processes(): Promise<{ processes: Array<ProcessInfo & { node: string }>; unanswered: UnansweredNode[] }> {
    const { answers, unanswered } = await this.everyNode(
      async () => this.options.host.processes(),
      async (node) =>
        unwrap(
          await this.options.messenger.requestNode(node, "processes", {}, { timeoutMs: this.timeoutMs }),
          (value) => value.processes,
        ),
    );
    return { processes: answers.flatMap(({ node, value }) => value.map((row) => ({ ...row, node }))), unanswered };
  }

  async instances(): Promise<{ instances: NodeInstanceRow[]; unanswered: UnansweredNode[] }> {
    const { answers, unanswered } = await this.everyNode(
      () => this.options.host.instances(),
      async (node) =>
        unwrap(
          await this.options.messenger.requestNode(node, "instances", {}, { timeoutMs: this.timeoutMs }),
          (value) => value.instances,
        ),
    );
    return { instances: mergeInstanceRows(answers), unanswered };
  }

  async runtimeEvents(
    query: ClusterEventQuery,
  ): Promise<{ events: NodeRuntimeEvent[]; cursor: ClusterCursor; more: boolean; unanswered: UnansweredNode[] }> {
    const { after = {}, ...filters } = query;
    const ask = (node: string): NodeEventQuery => ({
      ...filters,
      ...(after[node] === undefined ? {} : { after: after[node] }),
    });
    const { answers, unanswered } = await this.everyNode(
      async (): Promise<{ events: StoredRuntimeEvent[]; more?: boolean }> => ({
        events: await this.options.host.runtimeEvents(ask(this.options.node)),
      }),
      (node) => this.options.messenger.requestNode(node, "runtime-events", ask(node), { timeoutMs: this.timeoutMs }),
    );
    const parts = answers.map(({ node, value }) => ({
      node,
      value: value.events,
      ...(value.more === true ? { more: true } : {}),
    }));
    return {
      ...mergeRuntimeEvents({ answers: parts, after, ...(query.limit === undefined ? {} : { limit: query.limit }) }),
      unanswered,
    };
  }

  async conversation(
    agent: string,
    instanceKey: string,
  ): Promise<{ node?: string; messages: Message[]; unanswered: UnansweredNode[] }> {
    const { node: self, host, messenger } = this.options;
    const owner = this.options.connected()
      ? await this.options.owner(agent, instanceKey).catch(() => undefined)
      : undefined;
    const silent: UnansweredNode[] = [];
    if (owner !== undefined) {
      const answer =
        owner === self
          ? { status: "ok" as const, value: await host.conversation(agent, instanceKey) }
          : await this.remoteConversation(owner, agent, instanceKey);
      // The holder is the authority: its copy is current even when it is empty (a fresh restart cleared it).
      if (answer.status === "ok")
        return {
          ...(answer.value.messages.length > 0 ? { node: owner } : {}),
          messages: answer.value.messages,
          unanswered: [],
        };
      // Not asked twice: the copies of the others are read without waiting for it again.
      silent.push({ node: owner, status: answer.status });
    }
    const { answers, unanswered } = await this.everyNode(
      () => host.conversation(agent, instanceKey),
      (node) => this.remoteConversation(node, agent, instanceKey),
      silent.map((item) => item.node),
    );
    unanswered.unshift(...silent);
    const best = freshestConversation(
      answers.map(({ node, value }) => ({
        node,
        messages: value.messages,
        ...(value.updatedAt === undefined ? {} : { updatedAt: value.updatedAt }),
      })),
    );
    return best === undefined
      ? { messages: [], unanswered }
      : { node: best.node, messages: [...best.messages], unanswered };
  }

  async eventState(eventId: string): Promise<{ state?: NodeEventState; unanswered: UnansweredNode[] }> {
    const { answers, unanswered } = await this.everyNode(
      () => this.options.host.eventState(eventId),
      async (node) =>
        unwrap(
          await this.options.messenger.requestNode(node, "event-state", { eventId }, { timeoutMs: this.timeoutMs }),
          (value) => value.state ?? undefined,
        ),
    );
    const state = furthestEventState(answers);
    return { ...(state === undefined ? {} : { state }), unanswered };
  }

  /** Another node's copy of a conversation, asked part after part until it has sent every message. */
  private async remoteConversation(
    node: string,
    agent: string,
    instanceKey: string,
  ): Promise<RequestOutcome<StoredConversation>> {
    const messages: Message[] = [];
    let from = 0;
    for (;;) {
      const answer = await this.options.messenger.requestNode(
        node,
        "conversation",
        { agent, instanceKey, from },
        { timeoutMs: this.timeoutMs },
      );
      if (answer.status !== "ok") return answer;
      const { next, updatedAt } = answer.value;
      messages.push(...answer.value.messages);
      // Each part moves forward, so this ends; a part that does not is taken as the last.
      if (next === undefined || next <= from)
        return { status: "ok", value: { messages, ...(updatedAt === undefined ? {} : { updatedAt }) } };
      from = next;
    }
  }

  /** This node's answer and every other live member's (but those in `skip`), at once. */
  private async everyNode<T>(
    local: () => Promise<T>,
    remote: (node: string) => Promise<RequestOutcome<T>>,
    skip: readonly string[] = [],
  ) {
    const { node } = this.options;
    const nodes = this.options.connected() ? await this.options.members().catch(() => [node]) : [node];
    return fanOut({ self: node, nodes: [node, ...nodes].filter((name) => !skip.includes(name)), local, remote });
  }
}

export interface OpenClusterView {
  reads: ClusterReads;
  /** The live members' names, as the reads ask them (live-events.ts asks the same). */
  members: () => string[];
  /** Stops serving the other nodes and watching the members. */
  stop(): void;
}

/**
 * Starts a node's part of the cluster-wide reads: a live view of the members, and this node's answers to the other
 * nodes' reads (resolves once they reach it). `owner` names the holder of a lease key.
 */
export async function openClusterView(options: {
  node: string;
  connection: ClusterConnection;
  names: ClusterNames;
  ttlMs: number;
  messenger: ClusterMessenger<NodeReadApi>;
  host: ReadHost;
  owner: (leaseKey: string) => Promise<string | undefined>;
}): Promise<OpenClusterView> {
  const { node, connection, names, messenger, host } = options;
  const members = await watchMembers({ connection, names, ttlMs: options.ttlMs });
  const view = new ClusterView({
    node,
    messenger,
    host,
    answerBytes: answerBudget(connection.nc.info?.max_payload),
    members: async () => members.nodes(),
    owner: (agent, instanceKey) => options.owner(names.instanceLeaseKey(agent, instanceKey)),
    connected: () => connection.state === "connected",
  });
  let served: Served[];
  try {
    served = await view.serve();
  } catch (error) {
    members.stop();
    throw error;
  }
  return {
    reads: view,
    members: () => members.nodes(),
    stop: () => {
      for (const one of served) one.stop();
      members.stop();
    },
  };
}

/** Reads that answer once `current` gives the node's reads (the daemon wires the API before the node is attached). */
export function lateReads(current: () => ClusterReads | undefined): ClusterReads {
  const reads = whenAttached(current, "a cluster-wide read");
  return {
    processes: () => reads().processes(),
    instances: () => reads().instances(),
    runtimeEvents: (query) => reads().runtimeEvents(query),
    conversation: (agent, instanceKey) => reads().conversation(agent, instanceKey),
    eventState: (eventId) => reads().eventState(eventId),
  };
}

/** One node's copy of an instance's conversation, with when its store last changed it. */
export async function storedConversation(
  store: { messages(agent: string, instanceKey: string): Promise<Message[]>; instances(): Promise<InstanceRow[]> },
  agent: string,
  instanceKey: string,
): Promise<StoredConversation> {
  const [messages, rows] = await Promise.all([store.messages(agent, instanceKey), store.instances()]);
  const updatedAt = rows.find((row) => row.agent === agent && row.instanceKey === instanceKey)?.updatedAt;
  return { messages, ...(updatedAt === undefined ? {} : { updatedAt }) };
}

function unwrap<T, U>(outcome: RequestOutcome<T>, pick: (value: T) => U): RequestOutcome<U> {
  return outcome.status === "ok" ? { status: "ok", value: pick(outcome.value) } : outcome;
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
