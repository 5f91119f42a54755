/**
 * Every NATS name a swarm's cluster uses, in one place: the subjects nodes and instances answer on, the KV
 * buckets (leases, nodes, config), the intake stream and its subjects, and the per-instance consumer names.
 * Each name part is a subjectToken, so names of different swarms, agents, keys or nodes never meet.
 *
 *   gdn.<swarm>.node.<node>.<kind>          request/reply to one node (kind: reply, place, …)
 *   gdn.<swarm>.instance.<agent>.<key>      request/reply to the node that owns one instance
 *   gdn.<swarm>.in.<agent>.<key>            an instance's accepted events (stream GDN_<swarm>_IN)
 *   gdn.<swarm>.state.<agent>.<key>         an instance's durable state log (stream GDN_<swarm>_STATE)
 *   gdn.<swarm>.stored.<agent>.<key>        the same records, republished by the stream once stored
 *   gdn.<swarm>.live.<node>                 a node's runtime-event batches, published while some node watches (core NATS)
 *   KV gdn_<swarm>_leases  key <agent>.<key>   which node owns an instance (TTL, revision = fencing token)
 *   KV gdn_<swarm>_nodes   key <node>          live nodes and their capacity (TTL)
 *   KV gdn_<swarm>_schedules key <connection>  which node fires a schedule's ticks (TTL, like an instance lease)
 *   KV gdn_<swarm>_ticks   key <connection>    the newest tick a schedule accepted (no TTL)
 *   KV gdn_<swarm>_config  key bundle          the cluster's bundle hash and reload generation (no TTL)
 *   KV gdn_<swarm>_config  key reload.<node>   how a node took the last reload announced (no TTL)
 */
import { subjectToken } from "./subject-token.ts";

export interface ClusterNames {
  swarm: string;
  nodeSubject(node: string, kind: string): string;
  instanceSubject(agent: string, instanceKey: string): string;
  intakeSubject(agent: string, instanceKey: string): string;
  /** Every intake subject of the swarm (the stream's subject filter). */
  intakeSubjects: string;
  intakeStream: string;
  /** An instance's state log (fenced appends by its lease holder). */
  stateSubject(agent: string, instanceKey: string): string;
  stateSubjects: string;
  stateStream: string;
  /** Where the state stream republishes an instance's records once stored (answer-watch.ts listens there). */
  storedStateSubject(agent: string, instanceKey: string): string;
  storedStateSubjects: string;
  /** Where a node publishes its runtime-event batches while some node watches (live-events.ts). */
  liveSubject(node: string): string;
  /** Every node's live subject (one subscription of a watching node). */
  liveSubjects: string;
  /** The durable consumer name of one instance's intake. */
  intakeConsumer(agent: string, instanceKey: string): string;
  leaseBucket: string;
  /** The lease key of one instance (a KV key with two tokens). */
  instanceLeaseKey(agent: string, instanceKey: string): string;
  /** Which node fires each schedule's ticks (leases keyed by the Connection's subject token). */
  scheduleLeaseBucket: string;
  /** The newest accepted tick of each schedule, so a node that takes a schedule over carries on after it. */
  tickCursorBucket: string;
  /** The calls suspended for a signal, by signal and instance, so any node finds them (instances/cluster-signals.ts). */
  signalWaitBucket: string;
  /** The signals and people's decisions sent to held calls and not yet applied by their instance's owner. */
  signalMailBucket: string;
  /** The calls held for a person's decision, by approval id, so any node finds them (instances/cluster-decisions.ts). */
  approvalBucket: string;
  /** The messages for later (`agents__schedule`) stored by their instance's owner and not answered yet. */
  laterEventBucket: string;
  nodesBucket: string;
  /** The membership key of a node (one token). */
  nodeKey(node: string): string;
  configBucket: string;
  /** The config key where a node reports how it took the last reload announced (two tokens). */
  reloadReportKey(node: string): string;
  /** Every node's reload report key (a KV key filter). */
  reloadReportKeys: string;
}

export const BUNDLE_CONFIG_KEY = "bundle";

export function clusterNames(swarm: string): ClusterNames {
  const s = subjectToken(swarm);
  const pair = (agent: string, instanceKey: string) => `${subjectToken(agent)}.${subjectToken(instanceKey)}`;
  return {
    swarm,
    nodeSubject: (node, kind) => `gdn.${s}.node.${subjectToken(node)}.${subjectToken(kind)}`,
    instanceSubject: (agent, instanceKey) => `gdn.${s}.instance.${pair(agent, instanceKey)}`,
    intakeSubject: (agent, instanceKey) => `gdn.${s}.in.${pair(agent, instanceKey)}`,
    intakeSubjects: `gdn.${s}.in.>`,
    intakeStream: `GDN_${s}_IN`,
    stateSubject: (agent, instanceKey) => `gdn.${s}.state.${pair(agent, instanceKey)}`,
    stateSubjects: `gdn.${s}.state.>`,
    stateStream: `GDN_${s}_STATE`,
    storedStateSubject: (agent, instanceKey) => `gdn.${s}.stored.${pair(agent, instanceKey)}`,
    storedStateSubjects: `gdn.${s}.stored.>`,
    liveSubject: (node) => `gdn.${s}.live.${subjectToken(node)}`,
    liveSubjects: `gdn.${s}.live.*`,
    intakeConsumer: (agent, instanceKey) => `${subjectToken(agent)}=${subjectToken(instanceKey)}`,
    leaseBucket: `gdn_${s}_leases`,
    instanceLeaseKey: pair,
    scheduleLeaseBucket: `gdn_${s}_schedules`,
    tickCursorBucket: `gdn_${s}_ticks`,
    signalWaitBucket: `gdn_${s}_waits`,
    signalMailBucket: `gdn_${s}_signals`,
    approvalBucket: `gdn_${s}_approvals`,
    laterEventBucket: `gdn_${s}_later`,
    nodesBucket: `gdn_${s}_nodes`,
    nodeKey: subjectToken,
    configBucket: `gdn_${s}_config`,
    reloadReportKey: (node) => `reload.${subjectToken(node)}`,
    reloadReportKeys: "reload.*",
  };
}
