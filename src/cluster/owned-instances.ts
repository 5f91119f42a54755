/**
 * The instances one node owns in a cluster, each held by a lease (claimed here, renewed by a LeaseKeeper) and fed
 * by its own reader of the intake stream: every event the stream delivers is handed to the orchestrator
 * (`acceptHere`), kept `working()` while its turn runs, and acked once its answer is durable in the node's store
 * — then, when another node accepted it, its answer is sent back there. A lost lease (taken, expired, or not
 * renewed in time because NATS is out of reach) stops the reader and the instance's child at once, before any other
 * node can claim it; its unacked event is delivered again to the next owner after the ack wait.
 */
import type { AgentEvent } from "../protocol/agent-event.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import { describe } from "../shared/errors.ts";
import type { Logger } from "../shared/logger.ts";
import type { EventIntake } from "./event-intake.ts";
import type { IntakeDelivery, InstanceIntake } from "./instance-intake.ts";
import type { LeaseKeeper, LeaseLossReason } from "./lease-keeper.ts";
import type { Lease } from "./lease-table.ts";

/** What the owned instances need of the orchestrator. */
export interface OwnerHost {
  acceptHere(event: AgentEvent): Promise<{ outcome?: TurnOutcome }>;
  release(agent: string, instanceKey: string, reason: string): Promise<void>;
}

export interface OwnedInstancesOptions {
  node: string;
  intake: EventIntake;
  keeper: () => LeaseKeeper;
  leaseKey: (agent: string, instanceKey: string) => string;
  /** Take the instance's durable state over under `lease` (fence and replay it); false when a newer holder has it. */
  takeState: (agent: string, instanceKey: string, lease: Lease) => Promise<boolean>;
  /** This node no longer writes the instance's state. */
  dropState: (agent: string, instanceKey: string) => void;
  /** An event not acked nor kept working this long is delivered again (the lease TTL). */
  ackWaitMs: number;
  /** Send the answer of an event accepted on `origin` back there. */
  sendBack: (origin: string, event: AgentEvent, outcome: TurnOutcome) => void;
  logger: Logger;
}

interface Owned {
  agent: string;
  instanceKey: string;
  stopped: boolean;
  intake?: InstanceIntake;
}

export class OwnedInstances {
  private readonly owned = new Map<string, Owned>();
  private readonly inFlight = new Map<string, { delivery: IntakeDelivery; key: string }>();
  private host: OwnerHost | undefined;
  private readonly ticker: ReturnType<typeof setInterval>;

  constructor(private readonly options: OwnedInstancesOptions) {
    // Keep every running turn's event: a turn longer than the ack wait must not be delivered again.
    this.ticker = setInterval(() => {
      for (const { delivery } of this.inFlight.values()) delivery.working();
    }, Math.max(250, Math.floor(options.ackWaitMs / 3)));
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

  /** Claims the instance's lease; when won, starts reading its events here. True when this node owns it now. */
  async claim(agent: string, instanceKey: string): Promise<boolean> {
    const key = this.options.leaseKey(agent, instanceKey);
    if (this.owned.has(key)) return true;
    const keeper = this.options.keeper();
    const outcome = await keeper.claim(key);
    if (outcome.status !== "claimed") return false;
    if (this.owned.has(key)) return true;
    // Nothing runs here before the instance's state is this node's: fenced against the old owner, and replayed.
    let taken = false;
    try {
      taken = await this.options.takeState(agent, instanceKey, outcome.lease);
    } finally {
      if (!taken) await keeper.release(key);
    }
    if (!taken) return false;
    const owned: Owned = { agent, instanceKey, stopped: false };
    this.owned.set(key, owned);
    this.options.logger.info({ agent, instanceKey, revision: outcome.lease.revision }, "claimed instance");
    void this.read(key, owned);
    return true;
  }

  /** True when the event was accepted on another node (its answer goes back there). */
  from(event: AgentEvent): boolean {
    const origin = this.inFlight.get(event.id)?.delivery.origin;
    return origin !== undefined && origin !== this.options.node;
  }

  /** The event's answer is durable here: ack it on the stream, and send it back to the node that accepted it. */
  answered(event: AgentEvent, outcome: TurnOutcome): void {
    const entry = this.inFlight.get(event.id);
    if (!entry) return;
    this.inFlight.delete(event.id);
    const { delivery } = entry;
    if (delivery.origin !== undefined && delivery.origin !== this.options.node) this.options.sendBack(delivery.origin, event, outcome);
    delivery.ack().catch((error: unknown) => this.options.logger.warn({ eventId: event.id, error: describe(error).message }, "could not ack an answered event; it will be delivered again and answered from the store"));
  }

  /** The lease was lost: stop reading and stop the instance here (its unacked event goes to the next owner). */
  lost(key: string, reason: LeaseLossReason): void {
    const owned = this.owned.get(key);
    if (!owned) return;
    this.options.logger.warn({ agent: owned.agent, instanceKey: owned.instanceKey, reason }, "lost an instance's lease; stopping it here");
    this.forget(key, owned);
    this.options.dropState(owned.agent, owned.instanceKey);
    void this.host?.release(owned.agent, owned.instanceKey, `lease lost (${reason})`);
  }

  /** Stops every reader (a clean shutdown: the orchestrator stopped first, so every answered event is acked). */
  stop(): void {
    clearInterval(this.ticker);
    for (const [key, owned] of this.owned) this.forget(key, owned);
  }

  private forget(key: string, owned: Owned): void {
    owned.stopped = true;
    this.owned.delete(key);
    for (const [eventId, entry] of this.inFlight) if (entry.key === key) this.inFlight.delete(eventId);
  }

  private async read(key: string, owned: Owned): Promise<void> {
    const { logger } = this.options;
    while (!owned.stopped) {
      let delivery: IntakeDelivery | undefined;
      try {
        if (owned.intake === undefined) {
          // Events the previous owner took and never acked come here now, not after its ack wait.
          if (await this.options.intake.resetStale(owned.agent, owned.instanceKey)) logger.info({ agent: owned.agent, instanceKey: owned.instanceKey }, "took over an instance's unacked events");
          owned.intake = await this.options.intake.instance(owned.agent, owned.instanceKey, { ackWaitMs: this.options.ackWaitMs });
        }
        delivery = await owned.intake.next({ waitMs: 2000 });
      } catch (error) {
        if (owned.stopped) return;
        logger.warn({ agent: owned.agent, instanceKey: owned.instanceKey, error: describe(error).message }, "cannot read an instance's events; retrying");
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      if (delivery === undefined) continue;
      if (owned.stopped || this.host === undefined) {
        delivery.retry();
        return;
      }
      await this.take(key, delivery);
    }
  }

  private async take(key: string, delivery: IntakeDelivery): Promise<void> {
    const { event } = delivery;
    this.inFlight.set(event.id, { delivery, key });
    try {
      const known = await (this.host as OwnerHost).acceptHere(event);
      // Answered before (delivered again after an ack was lost): not run again, its answer goes back.
      if (known.outcome) this.answered(event, known.outcome);
    } catch (error) {
      this.inFlight.delete(event.id);
      this.options.logger.warn({ eventId: event.id, error: describe(error).message }, "could not take an event in; handed back to the stream");
      delivery.retry(1000);
    }
  }
}
