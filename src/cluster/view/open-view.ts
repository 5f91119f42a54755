/**
 * Opening a node's part of the cluster-wide reads once it is attached: a live view of the members (member-view.ts),
 * the ClusterView that asks them, and this node's answers to their reads, stopped together.
 */
import { answerBudget } from "../answers/answer-budget.ts";
import { watchMembers } from "../members/member-view.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import type { ClusterMessenger, Served } from "../nats/messenger.ts";
import type { ClusterNames } from "../nats/names.ts";
import type { ClusterReads, NodeReadApi, ReadHost } from "./reads.ts";
import { ClusterView } from "./view.ts";

export interface OpenClusterView {
  reads: ClusterReads;
  /** The live members' names, as the reads ask them (live-events.ts asks the same). */
  members: () => string[];
  /** Stops serving the other nodes and watching the members. */
  stop(): void;
}

/**
 * Starts a node's part of the cluster-wide reads: a live view of the members, and this node's answers to the other
 * nodes' reads (resolves once they reach it). `owner` names the holder of a lease key; `runs` says whether this node
 * runs its instance.
 */
export async function openClusterView(options: {
  node: string;
  connection: ClusterConnection;
  names: ClusterNames;
  ttlMs: number;
  messenger: ClusterMessenger<NodeReadApi>;
  host: ReadHost;
  owner: (leaseKey: string) => Promise<string | undefined>;
  /** Whether this node runs the instance of a lease key. */
  runs: (leaseKey: string) => boolean;
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
    runs: (agent, instanceKey) => options.runs(names.instanceLeaseKey(agent, instanceKey)),
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
