/**
 * The cluster-wide reads as the HTTP API and the other nodes see them: what one node asks another
 * (`NodeReadApi`: `processes`, `instances`, `runtime-events`, `conversation`, `event-state`, and the held calls of
 * held-reads.ts: `held`, `approval`), what a node reads from its own orchestrator and store to answer (`ReadHost`),
 * and the reads the API serves in cluster mode (`ClusterReads`), answered by view.ts; with the stand-in the daemon
 * wires before its node is attached.
 */
import type { InstanceRow } from "../../orchestrator/instances/stored-instances.ts";
import type { EventState } from "../../orchestrator/routing/event-state.ts";
import type { Approval } from "../../protocol/approval.ts";
import type { Message } from "../../protocol/conversation.ts";
import type { RuntimeEventQuery, StoredRuntimeEvent } from "../../store/store.ts";
import type { ProcessInfo } from "../../supervision/process-table.ts";
import type { UnansweredNode } from "../members/node-fan-out.ts";
import type { NodeEventState } from "./event-state-merge.ts";
import type { ClusterHeld, HeldHost, HeldReadApi } from "./held-reads.ts";
import type { NodeInstanceRow } from "./instance-rows-merge.ts";
import type { ClusterCursor, NodeRuntimeEvent } from "./runtime-events-merge.ts";
import { whenAttached } from "./when-attached.ts";

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
} & HeldReadApi;

/** What this node reads from its own orchestrator and store. */
export interface ReadHost extends HeldHost {
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
  /** `more`: a node's events did not fit one page; ask again from `cursor`. `cursors`: each event's in its node. */
  runtimeEvents(query: ClusterEventQuery): Promise<{
    events: NodeRuntimeEvent[];
    cursors?: number[];
    cursor: ClusterCursor;
    more: boolean;
    unanswered: UnansweredNode[];
  }>;
  /** From its lease holder, else the freshest copy; `node` absent: no node has a conversation for it. */
  conversation(
    agent: string,
    instanceKey: string,
  ): Promise<{ node?: string; messages: Message[]; unanswered: UnansweredNode[] }>;
  /** The furthest state any node knows for the event, with that node; `state` absent: no node that answered knows it. */
  eventState(eventId: string): Promise<{ state?: NodeEventState; unanswered: UnansweredNode[] }>;
  /** The calls held for a person or a time or signal, and the messages for later, of the instances each node runs. */
  held(): Promise<ClusterHeld & { unanswered: UnansweredNode[] }>;
  /** The approval as the cluster knows it (held-reads.ts, bestCopy); undefined: no node that answered has it. */
  approval(id: string): Promise<Approval | undefined>;
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
    held: () => reads().held(),
    approval: (id) => reads().approval(id),
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
