/**
 * Durable intake: the swarm's JetStream stream of accepted events (GDN_<swarm>_IN, work-queue retention, on
 * subjects `gdn.<swarm>.in.<agent>.<key>`). `accept` publishes an event with `Nats-Msg-Id` = its id and resolves
 * only once the stream acknowledged it, so an HTTP `202` means the event is stored; a retried publish of the same
 * id within the duplicate window is acknowledged as a duplicate and stored once. Each instance reads its own
 * events through an InstanceIntake (instance-intake.ts); an event leaves the stream when its turn acks it.
 */
import { RetentionPolicy, StorageType, type PubAck } from "@nats-io/jetstream";
import { headers, nanos } from "@nats-io/transport-node";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import { clusterUnavailable } from "../nats/errors.ts";
import { clusterNames, type ClusterNames } from "../nats/names.ts";
import { InstanceIntake, type InstanceIntakeOptions } from "./instance-intake.ts";

export interface OpenIntakeOptions {
  connection: ClusterConnection;
  swarm: string;
  /** A publish retried within this long with the same event id is stored once. Default 120000. */
  duplicateWindowMs?: number;
  /** Longest wait for the stream's acknowledgement. Default 5000. */
  publishTimeoutMs?: number;
}

/** The header naming the node that accepted an event (where its answer goes). */
export const ORIGIN_HEADER = "Goondan-Origin";

export interface AcceptReceipt {
  eventId: string;
  /** The stream sequence the event is stored at. */
  sequence: number;
  /** The event id was stored before (a retried publish): nothing new was stored. */
  duplicate: boolean;
}

export class EventIntake {
  private constructor(
    private readonly connection: ClusterConnection,
    readonly names: ClusterNames,
    private readonly publishTimeoutMs: number,
  ) {}

  static async open(options: OpenIntakeOptions): Promise<EventIntake> {
    const names = clusterNames(options.swarm);
    const config = {
      name: names.intakeStream,
      subjects: [names.intakeSubjects],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(options.duplicateWindowMs ?? 120_000),
      description: `goondan accepted events of swarm ${options.swarm}`,
    };
    try {
      await options.connection.jsm.streams.add(config);
    } catch (error) {
      // Made before with other settings (an older duplicate window): keep the stream, take our window.
      try {
        await options.connection.jsm.streams.update(names.intakeStream, { duplicate_window: config.duplicate_window });
      } catch {
        throw clusterUnavailable(`opening the intake stream ${names.intakeStream}`, error);
      }
    }
    return new EventIntake(options.connection, names, options.publishTimeoutMs ?? 5000);
  }

  /**
   * Store an event for its instance; resolves once the stream has it. Throws E_CLUSTER_UNAVAILABLE otherwise.
   * `origin`: the node that accepted it, where its answer goes (the ORIGIN_HEADER). `dedupe: false` stores it
   * again even when its id was stored within the window: a node whose reader knows the id answers it from its
   * store (to this origin) instead of running it again.
   */
  async accept(event: AgentEvent, options: { origin?: string; dedupe?: boolean } = {}): Promise<AcceptReceipt> {
    let ack: PubAck;
    const origin = options.origin === undefined ? undefined : headers();
    if (origin !== undefined) origin.set(ORIGIN_HEADER, options.origin as string);
    try {
      ack = await this.connection.js.publish(
        this.names.intakeSubject(event.agent, event.instanceKey),
        JSON.stringify(event),
        {
          ...(options.dedupe === false ? {} : { msgID: event.id }),
          timeout: this.publishTimeoutMs,
          ...(origin ? { headers: origin } : {}),
        },
      );
    } catch (error) {
      throw clusterUnavailable(`accepting event ${event.id}`, error);
    }
    return { eventId: event.id, sequence: ack.seq, duplicate: ack.duplicate };
  }

  /**
   * A new owner's fresh start on an instance's events: when its durable consumer still has an event out to a
   * reader (a dead node's, acked by nobody until the ack wait ends) or pull requests waiting (a dead node's, which
   * would take the next event), the consumer is deleted, so the next reader gets every unacked event at once. The
   * events stay in the stream: work-queue retention removes an event only when it is acked. True when it was reset.
   */
  async resetStale(agent: string, instanceKey: string): Promise<boolean> {
    const name = this.names.intakeConsumer(agent, instanceKey);
    const info = await this.connection.jsm.consumers.info(this.names.intakeStream, name).catch(() => undefined);
    if (info === undefined || (info.num_ack_pending === 0 && info.num_waiting === 0)) return false;
    await this.connection.jsm.consumers.delete(this.names.intakeStream, name).catch((error: unknown) => {
      throw clusterUnavailable(`resetting the intake of ${agent}/${instanceKey}`, error);
    });
    return true;
  }

  /** The reader of one instance's events (its durable consumer, made on first use). */
  instance(
    agent: string,
    instanceKey: string,
    options: Omit<InstanceIntakeOptions, "connection" | "names" | "agent" | "instanceKey"> = {},
  ): Promise<InstanceIntake> {
    return InstanceIntake.open({ ...options, connection: this.connection, names: this.names, agent, instanceKey });
  }
}
