/**
 * One goondan node of a cluster, composed from the building blocks: its NATS connection, its membership (name and
 * heartbeat), the bundle agreement checked on join, the intake stream, the instance leases it holds
 * (OwnedInstances) and the requests other nodes send it (answers coming back, placements, process tables). It is
 * the orchestrator's EventPlacement: every accepted event is placed (its instance claimed here or by the node
 * chosen for it) and then stored in the intake stream before the caller hears it was accepted. A sweep claims
 * instances whose events wait in the stream with no live owner (a node died or was cut off).
 */
import type { AgentEvent } from "../protocol/agent-event.ts";
import { errorInfo } from "../protocol/error-info.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import { describe, SystemError } from "../shared/errors.ts";
import type { Logger } from "../shared/logger.ts";
import type { ProcessInfo } from "../supervision/process-table.ts";
import type { EventPlacement } from "../orchestrator/routing/event-placement.ts";
import { BundleAgreement } from "./bundle-agreement.ts";
import { bundleHash } from "./bundle-hash.ts";
import { connectCluster, type ClusterConnection } from "./cluster-connection.ts";
import { ClusterMessenger, type Served } from "./cluster-messenger.ts";
import { clusterNames, type ClusterNames } from "./cluster-names.ts";
import type { ClusterSettings } from "./cluster-settings.ts";
import { EventIntake } from "./event-intake.ts";
import { LeaseKeeper } from "./lease-keeper.ts";
import { DEFAULT_LEASE_TTL_MS, LeaseTable } from "./lease-table.ts";
import { LeaseWatch } from "./lease-watch.ts";
import { NodeMembership } from "./node-membership.ts";
import { OwnedInstances, type OwnerHost } from "./owned-instances.ts";
import { chooseNode, placementCandidates } from "./placement.ts";
import { sweepOrphans } from "./orphan-sweep.ts";
import { InstanceStateLog } from "./instance-state-log.ts";
import { ReplicatedStore } from "./replicated-store.ts";
import type { Store } from "../store/store.ts";

/** What one node asks another. */
export type NodeApi = {
  /** The answer of an event this node accepted and another ran. */
  outcome: { request: { event: AgentEvent; outcome: TurnOutcome }; response: { settled: true } };
  /** Claim an unowned instance here. */
  place: { request: { agent: string; instanceKey: string }; response: { owner: boolean } };
  /** This node's process table. */
  processes: { request: Record<string, never>; response: { processes: ProcessInfo[] } };
};

export interface ClusterHost extends OwnerHost {
  answeredElsewhere(event: AgentEvent, outcome: TurnOutcome): void;
  processes(): ProcessInfo[];
}

export interface JoinNodeOptions {
  settings: ClusterSettings;
  /** The swarm's instanceKey: names every bucket, stream and subject of the cluster. */
  swarm: string;
  bundleDir: string;
  maxProcesses: number;
  logger: Logger;
  /** Default 10000. */
  ttlMs?: number;
}

export class ClusterNode implements EventPlacement {
  private host: ClusterHost | undefined;
  private served: Served[] = [];
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  private local: Store | undefined;

  private constructor(
    readonly node: string,
    readonly connection: ClusterConnection,
    private readonly names: ClusterNames,
    private readonly membership: NodeMembership,
    private readonly intake: EventIntake,
    private readonly leases: LeaseTable,
    private readonly watch: LeaseWatch,
    private readonly owned: OwnedInstances,
    private readonly keeper: LeaseKeeper,
    private readonly messenger: ClusterMessenger<NodeApi>,
    private readonly stateLog: InstanceStateLog,
    private readonly logger: Logger,
  ) {}

  /** The node's store: `local` (its embedded store), with each owned instance's writes also in its JetStream state log. */
  store(local: Store): Store {
    this.local = local;
    return new ReplicatedStore(local, this.stateLog);
  }

  /** Connects, joins (name, bundle agreement), opens the intake and the lease bucket. Throws a clear error when refused. */
  static async join(options: JoinNodeOptions): Promise<ClusterNode> {
    const { settings, swarm, logger } = options;
    const node = settings.node;
    const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    const hash = bundleHash(options.bundleDir);
    const connection = await connectCluster(settings);
    let owned: OwnedInstances | undefined;
    let keeper: LeaseKeeper | undefined;
    try {
      const names = clusterNames(swarm);
      const membership = await NodeMembership.join({ connection, swarm, node, maxProcesses: options.maxProcesses, live: () => owned?.count ?? 0, bundleHash: hash, ttlMs, onLost: (reason) => logger.error({ reason }, "lost this node's cluster membership") });
      try {
        const agreement = await BundleAgreement.open({ connection, swarm });
        await agreement.join({ node, hash, members: await membership.members() });
      } catch (error) {
        await membership.leave().catch(() => undefined);
        throw error;
      }
      const intake = await EventIntake.open({ connection, swarm });
      const leases = await LeaseTable.open({ connection, bucket: names.leaseBucket, ttlMs, description: "goondan instance leases" });
      const watch = await LeaseWatch.start({ table: leases });
      const messenger = new ClusterMessenger<NodeApi>({ connection, swarm });
      const stateLog = await InstanceStateLog.open({ connection, names });
      // Set by `store()` before anything is claimed (the daemon wraps its store before the orchestrator starts).
      let local: () => Store | undefined = () => undefined;
      const ownedInstances = new OwnedInstances({
        node,
        intake,
        keeper: () => keeper as LeaseKeeper,
        leaseKey: names.instanceLeaseKey,
        takeState: async (agent, instanceKey, lease) => {
          const store = local();
          if (store === undefined) throw new Error("ClusterNode: claim before store()");
          const started = Date.now();
          const outcome = await stateLog.take({ swarm, agent, instanceKey }, lease, store);
          if (outcome.taken && outcome.replayed > 0) logger.info({ agent, instanceKey, records: outcome.replayed, ms: Date.now() - started }, "replayed an instance's state log");
          return outcome.taken;
        },
        dropState: (agent, instanceKey) => stateLog.drop({ swarm, agent, instanceKey }),
        ackWaitMs: ttlMs,
        sendBack: (origin, event, outcome) => void sendBack(messenger, origin, event, outcome, logger),
        logger,
      });
      owned = ownedInstances;
      keeper = new LeaseKeeper({ table: leases, owner: node, onLost: (lease, reason) => ownedInstances.lost(lease.key, reason) });
      logger.info({ node, servers: settings.servers, bundleHash: hash, ttlMs }, "joined the cluster");
      const clusterNode = new ClusterNode(node, connection, names, membership, intake, leases, watch, ownedInstances, keeper, messenger, stateLog, logger);
      local = () => clusterNode.local;
      return clusterNode;
    } catch (error) {
      await connection.stop();
      throw error;
    }
  }

  /** Starts serving other nodes and sweeping for orphaned instances, on behalf of `host` (the orchestrator). */
  async attach(host: ClusterHost): Promise<void> {
    this.host = host;
    this.owned.attach(host);
    const { messenger, node } = this;
    this.served = await Promise.all([
      messenger.serveNode(node, "outcome", async ({ event, outcome }) => {
        host.answeredElsewhere(event, outcome);
        return { settled: true as const };
      }),
      messenger.serveNode(node, "place", async ({ agent, instanceKey }) => ({ owner: await this.owned.claim(agent, instanceKey) })),
      messenger.serveNode(node, "processes", async () => ({ processes: host.processes() })),
    ]);
    const every = Math.max(500, Math.floor(this.leases.ttlMs / 4));
    this.sweepTimer = setInterval(() => void this.sweep(), every);
  }

  async accept(event: AgentEvent): Promise<void> {
    if (this.connection.state !== "connected") {
      throw new SystemError("E_CLUSTER_UNAVAILABLE", `this node (${this.node}) has lost its connection to the cluster's NATS; event not accepted`, { suggestion: "Retry later: the node reconnects by itself." });
    }
    await this.place(event.agent, event.instanceKey);
    // Not deduplicated by id on the stream: an agent's request sent again after its node died must reach the
    // callee's owner, which answers it from its store to this node rather than running it again.
    await this.intake.accept(event, { origin: this.node, dedupe: false });
  }

  from(event: AgentEvent): boolean {
    return this.owned.from(event);
  }

  answered(event: AgentEvent, outcome: TurnOutcome): void {
    this.owned.answered(event, outcome);
  }

  /** Every node's process table, each row with its node; a node that does not answer in time is left out. */
  async processes(local: ProcessInfo[]): Promise<Array<ProcessInfo & { node: string }>> {
    const members = await this.membership.members().catch(() => []);
    const rows = await Promise.all(
      members
        .filter((member) => member.node !== this.node)
        .map(async (member) => {
          const answer = await this.messenger.requestNode(member.node, "processes", {}, { timeoutMs: 2000 });
          return answer.status === "ok" ? answer.value.processes.map((row) => ({ ...row, node: member.node })) : [];
        }),
    );
    return [...local.map((row) => ({ ...row, node: this.node })), ...rows.flat()];
  }

  /** Leaves the cluster: stops readers, releases every lease and the node's name, closes the connection. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.sweepTimer);
    for (const served of this.served) served.stop();
    this.owned.stop();
    this.watch.stop();
    await this.keeper.releaseAll();
    this.keeper.stop();
    await this.membership.leave().catch(() => undefined);
    await this.connection.stop();
  }

  /** The instance has a live owner, or gets one: this node, or the one placement picks (claiming here if it fails). */
  private async place(agent: string, instanceKey: string): Promise<void> {
    const key = this.names.instanceLeaseKey(agent, instanceKey);
    if (this.owned.owns(key)) return;
    const holder = this.watch.holder(key) ?? (await this.leases.holder(key));
    if (holder !== undefined && holder.owner !== this.node) return;
    if (holder === undefined) {
      const members = await this.membership.members();
      const target = chooseNode({ instance: key, candidates: placementCandidates(members, this.watch.countsByOwner()) });
      if (target !== undefined && target !== this.node) {
        const answer = await this.messenger.requestNode(target, "place", { agent, instanceKey }, { timeoutMs: 2000 });
        if (answer.status === "ok") return;
      }
    }
    // Ours by an earlier run of this node (not renewed here) lapses within the TTL; the sweep claims it then.
    if (!(await this.owned.claim(agent, instanceKey))) this.logger.debug({ agent, instanceKey }, "instance is held elsewhere");
  }

  private async sweep(): Promise<void> {
    if (this.stopped || this.connection.state !== "connected") return;
    try {
      await sweepOrphans({
        connection: this.connection,
        names: this.names,
        owns: (key) => this.owned.owns(key),
        holder: (key) => this.leases.holder(key),
        claim: async (agent, instanceKey) => {
          const members = await this.membership.members();
          const key = this.names.instanceLeaseKey(agent, instanceKey);
          const target = chooseNode({ instance: key, candidates: placementCandidates(members, this.watch.countsByOwner()) });
          if (target === undefined || target === this.node) await this.owned.claim(agent, instanceKey);
        },
      });
    } catch (error) {
      this.logger.debug({ error: describe(error).message }, "orphan sweep failed; next time");
    }
  }
}

async function sendBack(messenger: ClusterMessenger<NodeApi>, origin: string, event: AgentEvent, outcome: TurnOutcome, logger: Logger): Promise<void> {
  const answer = await messenger.requestNode(origin, "outcome", { event, outcome }, { timeoutMs: 5000 });
  if (answer.status !== "ok") {
    const error = answer.status === "refused" || answer.status === "unavailable" ? answer.error : errorInfo({ code: answer.status, message: `node ${origin} did not take the answer` });
    logger.warn({ eventId: event.id, origin, status: answer.status, error }, "could not send an answer back to the node that accepted the event; it stays in this node's store");
  }
}
