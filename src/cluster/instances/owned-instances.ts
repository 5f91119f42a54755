/**
 * The instances one node owns in a cluster, each held by a lease (claimed here, renewed by a LeaseKeeper) and fed
 * by its own reader of the intake stream (read-owned-events.ts): every event the stream delivers is handed to the
 * orchestrator (`acceptHere`), kept `working()` while its turn runs, and acked once its answer is durable in the
 * node's store — then, when another node accepted it, its answer is sent back there. A lost lease (taken, expired,
 * or not renewed in time because NATS is out of reach) stops the reader and the instance's child at once, before any
 * other node can claim it; its unacked event is delivered again to the next owner after the ack wait.
 *
 * A lease lost for want of NATS (not renewed in time, or lapsed) is remembered, with the sequence of this node's
 * last write to the instance's state log when every write is known to be there: `reclaim` claims each remembered
 * instance again once NATS is back, and takes its state without a replay when the log still ends at that write. An
 * instance another node claimed meanwhile is dropped from memory. `handOver` gives an instance up gracefully (its
 * node drains): its running turn is answered first, then its lease is released for another node to claim.
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { EventIntake } from "../intake/event-intake.ts";
import type { IntakeDelivery } from "../intake/instance-intake.ts";
import type { LeaseKeeper, LeaseLossReason } from "../lease/lease-keeper.ts";
import type { Lease } from "../lease/lease-table.ts";
import { ackStoredForLater } from "./later-events.ts";
import { readOwnedEvents, type OwnedInstance } from "./read-owned-events.ts";

/** What the owned instances need of the orchestrator. */
export interface OwnerHost {
  acceptHere(event: AgentEvent): Promise<{ outcome?: TurnOutcome }>;
  release(agent: string, instanceKey: string, reason: string): Promise<void>;
  /** An answer for this node's own waiters and requesters (the orchestrator's answeredElsewhere). */
  answeredElsewhere?(event: AgentEvent, outcome: TurnOutcome): void;
}

export interface OwnedInstancesOptions {
  node: string;
  intake: EventIntake;
  keeper: () => LeaseKeeper;
  leaseKey: (agent: string, instanceKey: string) => string;
  /**
   * Take the instance's durable state over under `lease` (fence and replay it); false when a newer holder has it.
   * `resumeAfter`: this node's last write to it before it lost the lease (skip the replay if nobody wrote since).
   */
  takeState: (agent: string, instanceKey: string, lease: Lease, resumeAfter?: number) => Promise<boolean>;
  /** The sequence of this node's last write to the instance's state, when every write is known to be stored. */
  settledState: (agent: string, instanceKey: string) => number | undefined;
  /** This node no longer writes the instance's state. */
  dropState: (agent: string, instanceKey: string) => void;
  /** An event not acked nor kept working this long is delivered again (the lease TTL). */
  ackWaitMs: number;
  /** Send the answer of an event accepted on `origin` back there. */
  sendBack: (origin: string, event: AgentEvent, outcome: TurnOutcome) => void;
  /** This node now runs the instance (its state taken, its events read here). */
  claimed?: (agent: string, instanceKey: string) => void;
  /** Messages for later, acked once stored here and found again through this list (later-events.ts). */
  later?: { keep(event: AgentEvent): Promise<void>; done(event: AgentEvent): void };
  logger: Logger;
}

/** An instance whose lease this node lost for want of NATS, to claim back when NATS returns. */
export interface Remembered {
  agent: string;
  instanceKey: string;
  /** This node's last write to its state log, when known to be stored (see InstanceStateLog.settledSequence). */
  sequence?: number;
}

export class OwnedInstances {
  private readonly owned = new Map<string, OwnedInstance>();
  private readonly inFlight = new Map<string, { delivery: IntakeDelivery; key: string }>();
  private readonly remembered = new Map<string, Remembered>();
  /** Instances being stopped after a lost lease: a claim waits for it. */
  private readonly stopping = new Map<string, Promise<void>>();
  /** Instances being handed over: not claimed here again meanwhile (their events wait for the next owner). */
  private readonly handing = new Set<string>();
  private host: OwnerHost | undefined;
  private readonly ticker: ReturnType<typeof setInterval>;
  private ended = false;

  constructor(private readonly options: OwnedInstancesOptions) {
    // Keep every running turn's event: a turn longer than the ack wait must not be delivered again.
    this.ticker = setInterval(
      () => {
        for (const { delivery } of this.inFlight.values()) delivery.working();
      },
      Math.max(250, Math.floor(options.ackWaitMs / 3)),
    );
  }

  attach(host: OwnerHost): void {
    this.host = host;
  }

  get count(): number {
    return this.owned.size;
  }

  owns(key: string): boolean {
    return this.owned.has(key);
  }

  /** Instances lost for want of NATS and not claimed back yet. */
  get awaiting(): number {
    return this.remembered.size;
  }

  remembers(key: string): boolean {
    return this.remembered.has(key);
  }

  /** Claims back every remembered instance at once; resolves with how many this node owns again. */
  async reclaim(): Promise<number> {
    const claimed = await Promise.all(
      [...this.remembered.values()].map((entry) => this.claim(entry.agent, entry.instanceKey).catch(() => false)),
    );
    return claimed.filter(Boolean).length;
  }

  /** Claims the instance's lease; when won, starts reading its events here. True when this node owns it now. */
  async claim(agent: string, instanceKey: string): Promise<boolean> {
    const key = this.options.leaseKey(agent, instanceKey);
    if (this.owned.has(key)) return true;
    if (this.handing.has(key)) return false;
    await this.stopping.get(key);
    const keeper = this.options.keeper();
    const remembered = this.remembered.get(key);
    const outcome = await keeper.claim(key);
    if (outcome.status !== "claimed") {
      // Our own stale lease not lapsed yet: try again later. Another node's: it took the instance over.
      if (remembered !== undefined && outcome.holder.owner !== this.options.node && this.remembered.delete(key)) {
        this.options.logger.info(
          { agent, instanceKey, owner: outcome.holder.owner },
          "another node took over an instance this node held before it lost NATS; dropped here",
        );
      }
      return false;
    }
    if (this.owned.has(key)) return true;
    // Nothing runs here before the instance's state is this node's: fenced against the old owner, and replayed
    // (or, taken back by this node with nobody writing since, only fenced).
    let taken = false;
    try {
      taken = await this.options.takeState(agent, instanceKey, outcome.lease, remembered?.sequence);
      this.remembered.delete(key);
    } finally {
      if (!taken) await keeper.release(key);
    }
    if (!taken) return false;
    const owned: OwnedInstance = { agent, instanceKey, stopped: false };
    this.owned.set(key, owned);
    this.options.logger.info({ agent, instanceKey, revision: outcome.lease.revision }, "claimed instance");
    const { intake, ackWaitMs, logger } = this.options;
    owned.reading = readOwnedEvents(owned, {
      intake,
      ackWaitMs,
      logger,
      attached: () => this.host !== undefined,
      take: (delivery) => this.take(key, delivery),
    });
    this.options.claimed?.(agent, instanceKey);
    return true;
  }

  /** True when the event was accepted on another node (its answer goes back there). */
  from(event: AgentEvent): boolean {
    const origin = this.inFlight.get(event.id)?.delivery.origin;
    return origin !== undefined && origin !== this.options.node;
  }

  /** The event's answer is durable here: ack it on the stream, and send it back to the node that accepted it. */
  answered(event: AgentEvent, outcome: TurnOutcome): void {
    if (event.notBefore !== undefined) this.options.later?.done(event);
    const entry = this.inFlight.get(event.id);
    if (!entry) return;
    this.inFlight.delete(event.id);
    const { delivery } = entry;
    if (delivery.origin !== undefined && delivery.origin !== this.options.node)
      this.options.sendBack(delivery.origin, event, outcome);
    delivery
      .ack()
      .catch((error: unknown) =>
        this.options.logger.warn(
          { eventId: event.id, error: describe(error).message },
          "could not ack an answered event; it will be delivered again and answered from the store",
        ),
      );
  }

  /** The lease was lost: stop reading and stop the instance here (its unacked event goes to the next owner). */
  lost(key: string, reason: LeaseLossReason): void {
    const owned = this.owned.get(key);
    if (!owned) return;
    const { agent, instanceKey } = owned;
    this.options.logger.warn({ agent, instanceKey, reason }, "lost an instance's lease; stopping it here");
    this.forget(key, owned);
    if (reason === "taken") {
      this.options.dropState(agent, instanceKey);
      void this.host?.release(agent, instanceKey, `lease lost (${reason})`);
      return;
    }
    // Lost for want of NATS: nobody else holds it yet. Stop the child, then note how far this node's state log
    // got (a write the child made while stopping is queued on it, so it counts), and claim it back later.
    const stopped = (async () => {
      await this.host?.release(agent, instanceKey, `lease lost (${reason})`).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 0));
      const sequence = this.options.settledState(agent, instanceKey);
      this.options.dropState(agent, instanceKey);
      if (!this.ended)
        this.remembered.set(key, { agent, instanceKey, ...(sequence === undefined ? {} : { sequence }) });
    })().finally(() => this.stopping.delete(key));
    this.stopping.set(key, stopped);
  }

  /** The instances this node owns now. */
  list(): Array<{ agent: string; instanceKey: string; key: string }> {
    return [...this.owned]
      .filter(([, owned]) => !owned.stopped)
      .map(([key, { agent, instanceKey }]) => ({ agent, instanceKey, key }));
  }

  /**
   * Gives the instance up gracefully: reads no more of its events (they wait in the stream for the next owner), lets
   * its running turn be answered (up to `graceMs`; past it the turn is stopped and its event goes to the next owner
   * with the rest), stops it here and releases its lease. A claim of it here meanwhile is refused. False when this
   * node does not own it (any more).
   */
  async handOver(agent: string, instanceKey: string, reason: string, graceMs: number): Promise<boolean> {
    const key = this.options.leaseKey(agent, instanceKey);
    const owned = this.owned.get(key);
    if (owned === undefined || owned.stopped) return false;
    owned.stopped = true;
    this.handing.add(key);
    try {
      const deadline = Date.now() + graceMs;
      while (Date.now() < deadline && [...this.inFlight.values()].some((entry) => entry.key === key))
        await new Promise((resolve) => setTimeout(resolve, 50));
      await owned.reading;
      if (this.owned.get(key) !== owned) return false; // lost meanwhile: `lost` stopped it
      this.forget(key, owned);
      await this.host?.release(agent, instanceKey, reason).catch(() => undefined);
      this.options.dropState(agent, instanceKey);
      await this.options.keeper().release(key);
      this.options.logger.info({ agent, instanceKey, reason }, "handed an instance over: stopped here, lease released");
      return true;
    } finally {
      this.handing.delete(key);
    }
  }

  /** Stops every reader (a clean shutdown: the orchestrator stopped first, so every answered event is acked). */
  stop(): void {
    this.ended = true;
    this.remembered.clear();
    clearInterval(this.ticker);
    for (const [key, owned] of this.owned) this.forget(key, owned);
  }

  private forget(key: string, owned: OwnedInstance): void {
    owned.stopped = true;
    this.owned.delete(key);
    for (const [eventId, entry] of this.inFlight) if (entry.key === key) this.inFlight.delete(eventId);
  }

  private async take(key: string, delivery: IntakeDelivery): Promise<void> {
    const { event } = delivery;
    this.inFlight.set(event.id, { delivery, key });
    try {
      const host = this.host as OwnerHost;
      const known = await host.acceptHere(event);
      if (known.outcome) {
        // Answered before (delivered again after an ack was lost, or asked again by a requester that came back after a
        // failover): not run again. Its answer goes back to the node that accepted it, or, accepted here, to this
        // node's own waiters and requester: one that asked again before this node held the callee's state (its store
        // did not know the request yet) waits for it, and no turn will end to route it.
        if (!this.from(event)) host.answeredElsewhere?.(event, known.outcome);
        this.answered(event, known.outcome);
      } else
        await ackStoredForLater(delivery, {
          later: this.options.later,
          release: () => this.inFlight.get(event.id)?.delivery === delivery && this.inFlight.delete(event.id),
        });
    } catch (error) {
      // Taken in before this node lost the instance (and maybe claimed it back since, with the event delivered
      // again): the write failed with the lost lease, and the entry, if any, is the new delivery's. Leave it.
      if (this.inFlight.get(event.id)?.delivery !== delivery) {
        this.options.logger.debug(
          { eventId: event.id, error: describe(error).message },
          "an event taken in before the instance's lease was lost failed to write; its new delivery carries on",
        );
        return;
      }
      this.inFlight.delete(event.id);
      this.options.logger.warn(
        { eventId: event.id, error: describe(error).message },
        "could not take an event in; handed back to the stream",
      );
      delivery.retry(1000);
    }
  }
}
