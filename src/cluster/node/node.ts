/**
 * One goondan node of a cluster, composed from the building blocks: its NATS connection, its membership (name and
 * heartbeat), the bundle agreement checked on join, the intake stream, the instance leases it holds
 * (OwnedInstances) and the requests other nodes send it (answers coming back, placements, and the cluster-wide
 * reads of view/view.ts: process and instance tables, runtime events, conversations). It is
 * the orchestrator's EventPlacement: every accepted event is placed (its instance claimed here or by the node
 * chosen for it) and then stored in the intake stream before the caller hears it was accepted; the answer of one
 * placed on another node is taken from that node's state log as it is stored (answer-watch.ts). A sweep claims
 * instances whose events wait in the stream with no live owner (a node died or was cut off). Losing NATS and getting
 * it back is OutageRecovery's: the node claims back the instances it stopped meanwhile. Once the daemon can
 * restart, `startReload` makes the node take the reloads other nodes announce (reload/reload.ts), and drain while
 * it runs a configuration the cluster no longer runs (node-drain.ts).
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { ClusterHost, JoinNodeOptions } from "./node-options.ts";
import { lateLive, LiveEvents } from "../live/live-events.ts";
import type { LiveFeed } from "../live/live-interest.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import { describe, SystemError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { EventPlacement } from "../../orchestrator/routing/event-placement.ts";
import { AnswerWatch } from "../answers/answer-watch.ts";
import { sendAnswerBack } from "../answers/answer-return.ts";
import { BundleAgreement } from "../reload/bundle-agreement.ts";
import { ClusterReload } from "../reload/reload.ts";
import type { RestartCoordinator } from "../../orchestrator/reload/restart-coordinator.ts";
import { bundleHash } from "../reload/bundle-hash.ts";
import { connectCluster, type ClusterConnection } from "../nats/connection.ts";
import { ClusterMessenger, type Served } from "../nats/messenger.ts";
import { openClusterView, type OpenClusterView } from "../view/open-view.ts";
import { lateReads, type ClusterReads } from "../view/reads.ts";
import type { NodeApi } from "./node-api.ts";
import { clusterNames, type ClusterNames } from "../nats/names.ts";
import { EventIntake } from "../intake/event-intake.ts";
import { LeaseKeeper } from "../lease/lease-keeper.ts";
import { DEFAULT_LEASE_TTL_MS, LeaseTable } from "../lease/lease-table.ts";
import { LeaseWatch } from "../lease/lease-watch.ts";
import { NodeMembership } from "../members/node-membership.ts";
import { NodeDrain } from "../reload/node-drain.ts";
import { OwnedInstances } from "../instances/owned-instances.ts";
import { chooseNode, placementCandidates } from "../members/placement.ts";
import { sweepOrphans } from "../intake/orphan-sweep.ts";
import { OutageRecovery, type ClusterStatus } from "../instances/outage-recovery.ts";
import { InstanceStateLog, ReplicatedStore } from "../../store/nats/index.ts";
import { clearUnownedInstance } from "../instances/clear-unowned-instance.ts";
import { takeInstanceState } from "../instances/take-instance-state.ts";
import type { Store } from "../../store/store.ts";

export type { ClusterHost, JoinNodeOptions } from "./node-options.ts";

export class ClusterNode implements EventPlacement {
  private host: ClusterHost | undefined;
  private served: Served[] = [];
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  private local: Store | undefined;
  private reload: ClusterReload | undefined;
  private view: OpenClusterView | undefined;
  private drain: NodeDrain | undefined;
  private liveEvents: LiveEvents | undefined;

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
    private readonly recovery: OutageRecovery,
    private readonly logger: Logger,
    /** The bundle agreement, this node's bundle directory and the cluster's reload generation when it joined. */
    private readonly bundle: { agreement: BundleAgreement; dir: string; generation: number },
    /** Answers of events accepted here for instances other nodes own, taken from their state logs as stored. */
    private readonly answers: AnswerWatch,
  ) {}

  /** The node's store: `local` (its embedded store), with each owned instance's writes also in its JetStream state log. */
  store(local: Store): Store {
    this.local = local;
    const { leases, names, stateLog: log, node, logger } = this;
    return new ReplicatedStore(local, this.stateLog, {
      clearUnowned: (ref) => clearUnownedInstance(ref, { leases, names, log, node, local, logger }),
    });
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
    let clusterNode: ClusterNode | undefined;
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
        onLost: (reason) =>
          logger.warn({ reason }, "lost this node's cluster membership; it rejoins once NATS answers"),
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
      // Set by `store()` before anything is claimed (the daemon wraps its store before the orchestrator starts).
      let local: () => Store | undefined = () => undefined;
      const ownedInstances = new OwnedInstances({
        node,
        intake,
        keeper: () => keeper as LeaseKeeper,
        leaseKey: names.instanceLeaseKey,
        takeState: takeInstanceState({ swarm, stateLog, local: () => local(), logger }),
        settledState: (agent, instanceKey) => stateLog.settledSequence({ swarm, agent, instanceKey }),
        dropState: (agent, instanceKey) => stateLog.drop({ swarm, agent, instanceKey }),
        ackWaitMs: ttlMs,
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
            if (!delivered) clusterNode?.host?.answeredElsewhere(event, outcome);
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
        onAnswer: (event, outcome) => clusterNode?.host?.answeredElsewhere(event, outcome),
      });
      clusterNode = new ClusterNode(
        node,
        connection,
        names,
        membership,
        intake,
        leases,
        watch,
        ownedInstances,
        keeper,
        messenger,
        stateLog,
        recovery,
        logger,
        bundle,
        answers,
      );
      local = () => clusterNode?.local;
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
        // Dropped when its record in the owner's state log brought it here first (answer-watch.ts).
        if (this.answers.fromOwner(event.id)) host.answeredElsewhere(event, outcome);
        return { settled: true as const };
      }),
      messenger.serveNode(node, "place", async ({ agent, instanceKey }) => ({
        owner: this.membership.draining === undefined && (await this.owned.claim(agent, instanceKey)),
      })),
    ]);
    this.view = await openClusterView({
      node,
      connection: this.connection,
      names: this.names,
      ttlMs: this.leases.ttlMs,
      messenger,
      host,
      owner: async (key) => (this.watch.holder(key) ?? (await this.leases.holder(key)))?.owner,
    });
    const { connection, names, logger, view } = this;
    await (this.liveEvents = new LiveEvents({
      node,
      connection,
      names,
      messenger,
      members: () => view?.members() ?? [node],
      logger,
    })).serve();
    const every = Math.max(500, Math.floor(this.leases.ttlMs / 4));
    this.sweepTimer = setInterval(() => void this.sweep(), every);
  }

  /** Takes the reloads other nodes announce, through this node's restart coordinator; stopped with the node. */
  async startReload(restarts: Pick<RestartCoordinator, "request">): Promise<ClusterReload> {
    const { agreement, dir, generation } = this.bundle;
    const drain = (this.drain = new NodeDrain({
      node: this.node,
      membership: this.membership,
      owned: this.owned,
      leaseCounts: () => this.watch.countsByOwner(),
      messenger: this.messenger,
      logger: this.logger,
    }));
    this.reload = await ClusterReload.start({
      agreement,
      node: this.node,
      bundleDir: dir,
      joinedAt: generation,
      restarts,
      runs: (hash) => this.membership.runs(hash),
      drains: (draining) => drain.set(draining),
      logger: this.logger,
    });
    return this.reload;
  }

  async accept(event: AgentEvent): Promise<void> {
    if (this.connection.state !== "connected") {
      throw new SystemError(
        "E_CLUSTER_UNAVAILABLE",
        `this node (${this.node}) has lost its connection to the cluster's NATS; event not accepted`,
        { suggestion: "Retry later: the node reconnects by itself." },
      );
    }
    const owner = await this.place(event.agent, event.instanceKey);
    // Run elsewhere: its answer is taken from the owner's state log as soon as it is stored there.
    if (owner !== undefined && owner !== this.node) this.answers.expect(event);
    // Not deduplicated by id on the stream: an agent's request sent again after its node died must reach the
    // callee's owner, which answers it from its store to this node rather than running it again.
    await this.intake.accept(event, { origin: this.node, dedupe: false }).catch((error: unknown) => {
      this.answers.forget(event.id);
      throw error;
    });
  }

  from(event: AgentEvent): boolean {
    return this.owned.from(event);
  }

  answered(event: AgentEvent, outcome: TurnOutcome): void {
    this.owned.answered(event, outcome);
  }

  /** The cluster-wide reads (process and instance tables, runtime events, conversations), answered once attached. */
  reads(): ClusterReads {
    return lateReads(() => this.view?.reads);
  }

  /** Every node's live runtime events while some node watches, and the publishing of this node's (live-events.ts). */
  live(): LiveFeed {
    return lateLive(this.node, () => this.liveEvents);
  }

  /** Whether this node is connected, a member, and how many instances it holds or waits to claim back. */
  status(): ClusterStatus {
    return {
      ...this.recovery.status(this.node, this.owned.count),
      ...(this.membership.draining ? { draining: this.membership.draining } : {}),
    };
  }

  /** Leaves the cluster: stops readers, releases every lease and the node's name, closes the connection. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.sweepTimer);
    this.recovery.stop();
    this.reload?.stop();
    for (const served of this.served) served.stop();
    this.view?.stop();
    this.liveEvents?.stop();
    this.answers.stop();
    this.owned.stop();
    this.watch.stop();
    await this.keeper.releaseAll();
    this.keeper.stop();
    await this.membership.leave().catch(() => undefined);
    await this.connection.stop();
  }

  /**
   * The instance has a live owner, or gets one: this node, or the one placement picks (claiming here if it fails).
   * Resolves with the owner's name, when known.
   */
  private async place(agent: string, instanceKey: string): Promise<string | undefined> {
    const key = this.names.instanceLeaseKey(agent, instanceKey);
    if (this.owned.owns(key)) return this.node;
    const holder = this.watch.holder(key) ?? (await this.leases.holder(key));
    if (holder !== undefined && holder.owner !== this.node) return holder.owner;
    // One this node held before it lost NATS is claimed back here (without a replay when nobody wrote it since).
    if (holder === undefined && !this.owned.remembers(key)) {
      const members = await this.membership.members();
      const target = chooseNode({
        instance: key,
        candidates: placementCandidates(members, this.watch.countsByOwner()),
      });
      if (target !== undefined && target !== this.node) {
        const answer = await this.messenger.requestNode(target, "place", { agent, instanceKey }, { timeoutMs: 2000 });
        if (answer.status === "ok" && answer.value.owner) return target; // a node that drains says no: claimed here then
      }
    }
    // Ours by an earlier run of this node (not renewed here) lapses within the TTL; the sweep claims it then.
    if (await this.owned.claim(agent, instanceKey)) return this.node;
    this.logger.debug({ agent, instanceKey }, "instance is held elsewhere");
    return undefined;
  }

  private async sweep(): Promise<void> {
    if (this.stopped || this.connection.state !== "connected") return;
    // This node's own instances first (they were its before NATS went away), then other nodes' orphans.
    await this.recovery.recover();
    void this.drain?.handOver(); // while it drains, whatever it still owns goes to a node that agrees
    try {
      // One listing of the members serves the deferral and every placement of this sweep; while deferring, no
      // orphan is claimed, so none is looked for.
      const members = await this.membership.members();
      if (
        this.recovery.deferring(
          members.map((member) => member.node),
          this.node,
        )
      )
        return;
      await sweepOrphans({
        connection: this.connection,
        names: this.names,
        owns: (key) => this.owned.owns(key) || this.owned.remembers(key),
        holder: (key) => this.leases.holder(key),
        claim: async (agent, instanceKey) => {
          const key = this.names.instanceLeaseKey(agent, instanceKey);
          const target = chooseNode({
            instance: key,
            candidates: placementCandidates(members, this.watch.countsByOwner()),
          });
          if (target === undefined || target === this.node) await this.owned.claim(agent, instanceKey);
        },
      });
    } catch (error) {
      this.logger.debug({ error: describe(error).message }, "orphan sweep failed; next time");
    }
  }
}
