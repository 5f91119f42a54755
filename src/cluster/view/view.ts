/**
 * The cluster seen from any node: the reads the HTTP API serves (process table, instance table, runtime events, an
 * instance's conversation, where an event stands; reads.ts) answered for every node at once. Each node serves its own
 * part of them to the others as node requests (serve-reads.ts); a read asks every live member at once (as a live
 * watch of the nodes bucket shows them: member-view.ts), bounded by the messenger's timeout, merges the answers
 * (instance-rows-merge.ts, runtime-events-merge.ts, held-reads.ts) and names every node that did not answer. A conversation comes
 * from the instance's lease holder, which is its authority; when no node holds it (or the holder does not answer)
 * from the freshest copy any node keeps. While this node has lost NATS every read is its own, and the standing in
 * /v1/processes says so.
 */
import type { Approval } from "../../protocol/approval.ts";
import type { Message } from "../../protocol/conversation.ts";
import type { StoredRuntimeEvent } from "../../store/store.ts";
import type { ProcessInfo } from "../../supervision/process-table.ts";
import { answerBudget } from "../answers/answer-budget.ts";
import { fanOut, type UnansweredNode } from "../members/node-fan-out.ts";
import type { ClusterMessenger, RequestOutcome, Served } from "../nats/messenger.ts";
import { furthestEventState, type NodeEventState } from "./event-state-merge.ts";
import { bestCopy, mergeHeld, ownCopy, ownHeld, type ClusterHeld, type Runs } from "./held-reads.ts";
import { freshestConversation, mergeInstanceRows, type NodeInstanceRow } from "./instance-rows-merge.ts";
import type {
  ClusterEventQuery,
  ClusterReads,
  NodeEventQuery,
  NodeReadApi,
  ReadHost,
  StoredConversation,
} from "./reads.ts";
import { mergeRuntimeEvents, type ClusterCursor, type NodeRuntimeEvent } from "./runtime-events-merge.ts";
import { serveReads } from "./serve-reads.ts";

export interface ClusterViewOptions {
  node: string;
  messenger: ClusterMessenger<NodeReadApi>;
  host: ReadHost;
  /** The live members' names (this node's included). */
  members: () => Promise<string[]>;
  /** The node holding the instance's lease, if any. */
  owner: (agent: string, instanceKey: string) => Promise<string | undefined>;
  /** Whether this node runs an instance (held calls are read from the node that runs their instance). */
  runs: Runs;
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
    const { messenger, node, host, runs } = this.options;
    return serveReads({ messenger, node, host, runs, answerBytes: this.answerBytes });
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

  async runtimeEvents(query: ClusterEventQuery): Promise<{
    events: NodeRuntimeEvent[];
    cursors: number[];
    cursor: ClusterCursor;
    more: boolean;
    unanswered: UnansweredNode[];
  }> {
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
    const { node: self, host } = this.options;
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

  async held(): Promise<ClusterHeld & { unanswered: UnansweredNode[] }> {
    const { answers, unanswered } = await this.everyNode(
      () => ownHeld(this.options.host, this.options.runs),
      (node) => this.options.messenger.requestNode(node, "held", {}, { timeoutMs: this.timeoutMs }),
    );
    return { ...mergeHeld(answers), unanswered };
  }

  async approval(id: string): Promise<Approval | undefined> {
    const { answers } = await this.everyNode(
      () => ownCopy(this.options.host, this.options.runs, id),
      (node) => this.options.messenger.requestNode(node, "approval", { id }, { timeoutMs: this.timeoutMs }),
    );
    return bestCopy(answers.map(({ value }) => value));
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

function unwrap<T, U>(outcome: RequestOutcome<T>, pick: (value: T) => U): RequestOutcome<U> {
  return outcome.status === "ok" ? { status: "ok", value: pick(outcome.value) } : outcome;
}
