/**
 * One goondan node of a cluster, composed from the building blocks it joins with (node-parts.ts): its NATS
 * connection, its membership (name and heartbeat), the bundle agreement checked on join, the intake stream, the
 * instance leases it holds (OwnedInstances) and the requests other nodes send it (answers coming back, placements,
 * and the cluster-wide reads of view/view.ts: process and instance tables, runtime events, conversations). It is
 * the orchestrator's EventPlacement: every accepted event is placed (its instance claimed here or by the node
 * chosen for it) and then stored in the intake stream before the caller hears it was accepted; the answer of one
 * placed on another node is taken from that node's state log as it is stored (answer-watch.ts). A sweep claims
 * instances whose events wait in the stream with no live owner (a node died or was cut off). Losing NATS and getting
 * it back is OutageRecovery's: the node claims back the instances it stopped meanwhile. Once the daemon can
 * restart, `startReload` makes the node take the reloads other nodes announce (reload/reload.ts), and drain while
 * it runs a configuration the cluster no longer runs (node-drain.ts).
 */
import type { EventPlacement, TakeoverHost } from "../../orchestrator/routing/event-placement.ts";
import type { SignalRouting } from "../../orchestrator/approvals/signal-routing.ts";
import type { RestartCoordinator } from "../../orchestrator/reload/restart-coordinator.ts";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import { describe, SystemError } from "../../shared/errors.ts";
import { ReplicatedStore } from "../../store/nats/index.ts";
import type { Store } from "../../store/store.ts";
import { sweepOrphans } from "../intake/orphan-sweep.ts";
import { clearUnownedInstance } from "../instances/clear-unowned-instance.ts";
import type { ClusterStatus } from "../instances/outage-recovery.ts";
import { lateLive, LiveEvents } from "../live/live-events.ts";
import type { LiveFeed } from "../live/live-interest.ts";
import { chooseNode, placementCandidates } from "../members/placement.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import type { Served } from "../nats/messenger.ts";
import { NodeDrain } from "../reload/node-drain.ts";
import { ScheduleLeases } from "../lease/schedule-leases.ts";
import { ClusterReload } from "../reload/reload.ts";
import { openClusterView, type OpenClusterView } from "../view/open-view.ts";
import { lateReads, type ClusterReads } from "../view/reads.ts";
import { joinNodeParts, type NodeParts } from "./node-parts.ts";
import type { ClusterHost, JoinNodeOptions } from "./node-options.ts";

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
  private takeover: TakeoverHost | undefined;

  readonly node: string;
  readonly connection: ClusterConnection;

  private constructor(private readonly parts: NodeParts) {
    this.node = parts.node;
    this.connection = parts.connection;
  }

  /** The node's store: `local` (its embedded store), with each owned instance's writes also in its JetStream state log. */
  store(local: Store): Store {
    this.local = local;
    const { leases, names, stateLog: log, node, logger } = this.parts;
    return new ReplicatedStore(local, log, {
      clearUnowned: (ref) => clearUnownedInstance(ref, { leases, names, log, node, local, logger }),
    });
  }

  /** Connects, joins (name, bundle agreement), opens the intake and the lease bucket. Throws a clear error when refused. */
  static async join(options: JoinNodeOptions): Promise<ClusterNode> {
    // The parts ask the node for its host and store once it exists (an answer or a claim comes after the join).
    let joined: ClusterNode | undefined;
    const parts = await joinNodeParts(options, {
      host: () => joined?.host,
      local: () => joined?.local,
      takeover: () => joined?.takeover,
      reads: () => joined?.view?.reads,
    });
    joined = new ClusterNode(parts);
    return joined;
  }

  /** Starts serving other nodes and sweeping for orphaned instances, on behalf of `host` (the orchestrator). */
  async attach(host: ClusterHost): Promise<void> {
    this.host = host;
    this.parts.owned.attach(host);
    const { messenger, node } = this.parts;
    this.served = await Promise.all([
      messenger.serveNode(node, "outcome", async ({ event, outcome }) => {
        // Dropped when its record in the owner's state log brought it here first (answer-watch.ts).
        if (this.parts.answers.fromOwner(event.id)) host.answeredElsewhere(event, outcome);
        return { settled: true as const };
      }),
      messenger.serveNode(node, "place", async ({ agent, instanceKey }) => ({
        owner: this.parts.membership.draining === undefined && (await this.parts.owned.claim(agent, instanceKey)),
      })),
      messenger.serveNode(node, "signals", ({ agent, instanceKey }) =>
        this.parts.signals.deliverHere(agent, instanceKey),
      ),
    ]);
    this.view = await openClusterView({
      node,
      connection: this.connection,
      names: this.parts.names,
      ttlMs: this.parts.leases.ttlMs,
      messenger,
      host,
      owner: async (key) => (this.parts.watch.holder(key) ?? (await this.parts.leases.holder(key)))?.owner,
      runs: (key) => this.parts.owned.owns(key),
    });
    const { connection, names, logger } = this.parts;
    const { view } = this;
    await (this.liveEvents = new LiveEvents({
      node,
      connection,
      names,
      messenger,
      members: () => view?.members() ?? [node],
      logger,
    })).serve();
    const every = Math.max(500, Math.floor(this.parts.leases.ttlMs / 4));
    this.sweepTimer = setInterval(() => void this.sweep(), every);
  }

  /**
   * Signals and people's decisions sent to any node reach the calls held for them on every node
   * (instances/cluster-signals.ts, cluster-decisions.ts).
   */
  get signals(): SignalRouting {
    return this.parts.signals;
  }

  /** The orchestrator hears of each instance this node takes over (its timers and messages for later resumed). */
  attachTakeover(host: TakeoverHost): void {
    this.takeover = host;
  }

  /** The leases that make one node fire each schedule's ticks (lease/schedule-leases.ts), with this node's TTL. */
  scheduleLeases(): Promise<ScheduleLeases> {
    const { connection, names, node, leases, logger } = this.parts;
    return ScheduleLeases.open({ connection, names, node, ttlMs: leases.ttlMs, logger });
  }

  /** Takes the reloads other nodes announce, through this node's restart coordinator; stopped with the node. */
  async startReload(restarts: Pick<RestartCoordinator, "request">): Promise<ClusterReload> {
    const { agreement, dir, generation } = this.parts.bundle;
    const drain = (this.drain = new NodeDrain({
      node: this.node,
      membership: this.parts.membership,
      owned: this.parts.owned,
      leaseCounts: () => this.parts.watch.countsByOwner(),
      messenger: this.parts.messenger,
      logger: this.parts.logger,
    }));
    this.reload = await ClusterReload.start({
      agreement,
      node: this.node,
      bundleDir: dir,
      joinedAt: generation,
      restarts,
      runs: (hash) => this.parts.membership.runs(hash),
      drains: (draining) => drain.set(draining),
      logger: this.parts.logger,
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
    if (owner !== undefined && owner !== this.node) this.parts.answers.expect(event);
    // Not deduplicated by id on the stream: an agent's request sent again after its node died must reach the
    // callee's owner, which answers it from its store to this node rather than running it again.
    await this.parts.intake.accept(event, { origin: this.node, dedupe: false }).catch((error: unknown) => {
      this.parts.answers.forget(event.id);
      throw error;
    });
  }

  from(event: AgentEvent): boolean {
    return this.parts.owned.from(event);
  }

  answered(event: AgentEvent, outcome: TurnOutcome): void {
    this.parts.owned.answered(event, outcome);
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
      ...this.parts.recovery.status(this.node, this.parts.owned.count),
      ...(this.parts.membership.draining ? { draining: this.parts.membership.draining } : {}),
    };
  }

  /** Leaves the cluster: stops readers, releases every lease and the node's name, closes the connection. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.sweepTimer);
    this.parts.recovery.stop();
    this.reload?.stop();
    for (const served of this.served) served.stop();
    this.view?.stop();
    this.liveEvents?.stop();
    this.parts.answers.stop();
    this.parts.owned.stop();
    this.parts.watch.stop();
    await this.parts.keeper.releaseAll();
    this.parts.keeper.stop();
    await this.parts.membership.leave().catch(() => undefined);
    await this.connection.stop();
  }

  /**
   * The instance has a live owner, or gets one: this node, or the one placement picks (claiming here if it fails).
   * Resolves with the owner's name, when known.
   */
  private async place(agent: string, instanceKey: string): Promise<string | undefined> {
    const key = this.parts.names.instanceLeaseKey(agent, instanceKey);
    if (this.parts.owned.owns(key)) return this.node;
    const holder = this.parts.watch.holder(key) ?? (await this.parts.leases.holder(key));
    if (holder !== undefined && holder.owner !== this.node) return holder.owner;
    // One this node held before it lost NATS is claimed back here (without a replay when nobody wrote it since).
    if (holder === undefined && !this.parts.owned.remembers(key)) {
      const members = await this.parts.membership.members();
      const target = chooseNode({
        instance: key,
        candidates: placementCandidates(members, this.parts.watch.countsByOwner()),
      });
      if (target !== undefined && target !== this.node) {
        const answer = await this.parts.messenger.requestNode(
          target,
          "place",
          { agent, instanceKey },
          { timeoutMs: 2000 },
        );
        if (answer.status === "ok" && answer.value.owner) return target; // a node that drains says no: claimed here then
      }
    }
    // Ours by an earlier run of this node (not renewed here) lapses within the TTL; the sweep claims it then.
    if (await this.parts.owned.claim(agent, instanceKey)) return this.node;
    this.parts.logger.debug({ agent, instanceKey }, "instance is held elsewhere");
    return undefined;
  }

  private async sweep(): Promise<void> {
    if (this.stopped || this.connection.state !== "connected") return;
    // This node's own instances first (they were its before NATS went away), then other nodes' orphans.
    await this.parts.recovery.recover();
    void this.drain?.handOver(); // while it drains, whatever it still owns goes to a node that agrees
    try {
      // One listing of the members serves the deferral and every placement of this sweep; while deferring, no
      // orphan is claimed, so none is looked for.
      const members = await this.parts.membership.members();
      if (
        this.parts.recovery.deferring(
          members.map((member) => member.node),
          this.node,
        )
      )
        return;
      await sweepOrphans({
        connection: this.connection,
        names: this.parts.names,
        owns: (key) => this.parts.owned.owns(key) || this.parts.owned.remembers(key),
        holder: (key) => this.parts.leases.holder(key),
        claim: async (agent, instanceKey) => {
          const key = this.parts.names.instanceLeaseKey(agent, instanceKey);
          const target = chooseNode({
            instance: key,
            candidates: placementCandidates(members, this.parts.watch.countsByOwner()),
          });
          if (target === undefined || target === this.node) await this.parts.owned.claim(agent, instanceKey);
        },
        more: () => this.parts.later.instances(),
      });
    } catch (error) {
      this.parts.logger.debug({ error: describe(error).message }, "orphan sweep failed; next time");
    }
  }
}
