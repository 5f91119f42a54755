/**
 * The parts one node of a cluster is made of, joined in order: its NATS connection, its membership (name and
 * heartbeat), the bundle agreement checked on join (leaving again when refused), the intake stream, the instance
 * lease bucket and its live watch, the messenger, the instances' state logs, the instances it owns with the keeper of
 * their leases, the recovery from a NATS outage, and the watch for answers of events it placed elsewhere. What the
 * parts need of the node once it exists (its host, the orchestrator; its embedded store) they ask `late` for.
 */
import { AnswerWatch } from "../answers/answer-watch.ts";
import { sendAnswerBack } from "../answers/answer-return.ts";
import { EventIntake } from "../intake/event-intake.ts";
import { OutageRecovery } from "../instances/outage-recovery.ts";
import { OwnedInstances } from "../instances/owned-instances.ts";
import { takeInstanceState } from "../instances/take-instance-state.ts";
import { ClusterSignals } from "../instances/cluster-signals.ts";
import { LaterEvents } from "../instances/later-events.ts";
import type { TakeoverHost } from "../../orchestrator/routing/event-placement.ts";
import { LeaseKeeper } from "../lease/lease-keeper.ts";
import { DEFAULT_LEASE_TTL_MS, LeaseTable } from "../lease/lease-table.ts";
import { LeaseWatch } from "../lease/lease-watch.ts";
import { NodeMembership } from "../members/node-membership.ts";
import { connectCluster, type ClusterConnection } from "../nats/connection.ts";
import { ClusterMessenger } from "../nats/messenger.ts";
import { clusterNames, type ClusterNames } from "../nats/names.ts";
import { BundleAgreement } from "../reload/bundle-agreement.ts";
import { bundleHash } from "../reload/bundle-hash.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import { InstanceStateLog } from "../../store/nats/index.ts";
import type { Store } from "../../store/store.ts";
import type { ClusterReads } from "../view/reads.ts";
import type { NodeApi } from "./node-api.ts";
import type { ClusterHost, JoinNodeOptions } from "./node-options.ts";

export interface NodeParts {
  node: string;
  connection: ClusterConnection;
  names: ClusterNames;
  membership: NodeMembership;
  intake: EventIntake;
  leases: LeaseTable;
  watch: LeaseWatch;
  owned: OwnedInstances;
  keeper: LeaseKeeper;
  messenger: ClusterMessenger<NodeApi>;
  stateLog: InstanceStateLog;
  recovery: OutageRecovery;
  logger: Logger;
  /** The bundle agreement, this node's bundle directory and the cluster's reload generation when it joined. */
  bundle: { agreement: BundleAgreement; dir: string; generation: number };
  /** Answers of events accepted here for instances other nodes own, taken from their state logs as stored. */
  answers: AnswerWatch;
  /** Signals and people's decisions sent to any node, reaching the calls held for them on every node. */
  signals: ClusterSignals;
  /** Messages for later stored by their instances' owners and not answered yet. */
  later: LaterEvents;
}

/**
 * Connects and joins: resolves with every part of the node, or throws a clear error when refused (the connection
 * closed). `late.local` is set by the node's `store()` before anything is claimed (the daemon wraps its store
 * before the orchestrator starts).
 */
export async function joinNodeParts(
  options: JoinNodeOptions,
  late: {
    host: () => ClusterHost | undefined;
    local: () => Store | undefined;
    takeover: () => TakeoverHost | undefined;
    /** The cluster-wide reads, once the node is attached. */
    reads: () => ClusterReads | undefined;
  },
): Promise<NodeParts> {
  const { settings, swarm, logger } = options;
  const node = settings.node;
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const hash = bundleHash(options.bundleDir);
  const connection = await connectCluster(settings);
  let owned: OwnedInstances | undefined;
  let keeper: LeaseKeeper | undefined;
  try {
    const names = clusterNames(swarm);
    const membership = await NodeMembership.join({
      connection,
      swarm,
      node,
      maxProcesses: options.maxProcesses,
      live: () => (owned === undefined ? 0 : owned.count + owned.awaiting),
      bundleHash: hash,
      ttlMs,
      onLost: (reason) => logger.warn({ reason }, "lost this node's cluster membership; it rejoins once NATS answers"),
    });
    let bundle: { agreement: BundleAgreement; dir: string; generation: number };
    try {
      const agreement = await BundleAgreement.open({ connection, swarm });
      const joined = await agreement.join({ node, hash, members: await membership.members() });
      bundle = { agreement, dir: options.bundleDir, generation: joined.generation };
    } catch (error) {
      await membership.leave().catch(() => undefined);
      throw error;
    }
    const intake = await EventIntake.open({ connection, swarm });
    const leases = await LeaseTable.open({
      connection,
      bucket: names.leaseBucket,
      ttlMs,
      description: "goondan instance leases",
    });
    const watch = await LeaseWatch.start({ table: leases });
    const messenger = new ClusterMessenger<NodeApi>({ connection, swarm });
    const stateLog = await InstanceStateLog.open({
      connection,
      names,
      ...(settings.compaction ? { compaction: settings.compaction } : {}),
      logger,
    });
    const signals = await ClusterSignals.open({
      connection,
      names,
      node,
      logger,
      owns: (agent, instanceKey) => owned?.owns(names.instanceLeaseKey(agent, instanceKey)) === true,
      holder: async (agent, instanceKey) => {
        const key = names.instanceLeaseKey(agent, instanceKey);
        return (watch.holder(key) ?? (await leases.holder(key)))?.owner;
      },
      ask: (target, agent, instanceKey) =>
        messenger.requestNode(target, "signals", { agent, instanceKey }, { timeoutMs: 3000 }),
      find: async (approvalId) => late.reads()?.approval(approvalId),
    });
    const later = await LaterEvents.open({ connection, names, logger });
    const ownedInstances = new OwnedInstances({
      node,
      intake,
      keeper: () => keeper as LeaseKeeper,
      leaseKey: names.instanceLeaseKey,
      takeState: takeInstanceState({ swarm, stateLog, local: late.local, logger }),
      settledState: (agent, instanceKey) => stateLog.settledSequence({ swarm, agent, instanceKey }),
      dropState: (agent, instanceKey) => stateLog.drop({ swarm, agent, instanceKey }),
      ackWaitMs: ttlMs,
      // Its suspended turn held and its deadlines armed here, its messages for later waiting again, then the
      // signals kept for it while no node ran it (its node died) applied.
      claimed: (agent, instanceKey) =>
        void (async () => {
          const pending = await late.takeover()?.taken(agent, instanceKey);
          if (pending !== undefined) await later.reconcile(agent, instanceKey, pending);
          await signals.deliverHere(agent, instanceKey);
        })().catch((error: unknown) =>
          logger.warn(
            { agent, instanceKey, error: describe(error).message },
            "could not resume the timers and signals of an instance taken over; its next event or signal does",
          ),
        ),
      later,
      sendBack: (origin, event, outcome) =>
        void sendAnswerBack({
          messenger,
          origin,
          event,
          outcome,
          isMember: async (name) => (await membership.members()).some((member) => member.node === name),
          logger,
        }).then((delivered) => {
          // The node that accepted it is gone or mute: its requester may have moved here, found the request
          // accepted in this node's store (it owns the callee) and be waiting for this very answer.
          if (!delivered) late.host()?.answeredElsewhere(event, outcome);
        }),
      logger,
    });
    owned = ownedInstances;
    keeper = new LeaseKeeper({
      table: leases,
      owner: node,
      onLost: (lease, reason) => ownedInstances.lost(lease.key, reason),
    });
    logger.info({ node, servers: settings.servers, bundleHash: hash, ttlMs }, "joined the cluster");
    const recovery = new OutageRecovery({ connection, owned: ownedInstances, membership, graceMs: ttlMs, logger });
    const answers = new AnswerWatch({
      connection,
      names,
      logger,
      onAnswer: (event, outcome) => late.host()?.answeredElsewhere(event, outcome),
    });
    return {
      node,
      connection,
      names,
      membership,
      intake,
      leases,
      watch,
      owned: ownedInstances,
      keeper,
      messenger,
      stateLog,
      recovery,
      logger,
      bundle,
      answers,
      signals,
      later,
    };
  } catch (error) {
    await connection.stop();
    throw error;
  }
}
