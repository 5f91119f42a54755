/**
 * One instance's accepted events, read from the swarm's intake stream by a durable consumer of its own: in
 * order, one at a time (max_ack_pending 1: the next event waits until the turn of this one acks it), with
 * explicit acks. An event whose turn neither acks nor says `working()` within `ackWaitMs` is delivered again,
 * with a higher attempt count: that is redelivery after a node crash. A long turn calls `working()` to keep its
 * event; `retry()` hands it back at once (or after a delay).
 */
import { AckPolicy, DeliverPolicy, type Consumer, type JsMsg } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import { SystemError } from "../../shared/errors.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import { clusterUnavailable } from "../nats/errors.ts";
import type { ClusterNames } from "../nats/names.ts";

/** The shortest pull the NATS client allows. */
const MIN_WAIT_MS = 1000;

export interface InstanceIntakeOptions {
  connection: ClusterConnection;
  names: ClusterNames;
  agent: string;
  instanceKey: string;
  /** An event not acked nor kept `working()` this long is delivered again. Default 10000 (the lease TTL). */
  ackWaitMs?: number;
}

export interface IntakeDelivery {
  event: AgentEvent;
  /** 1 on the first delivery, 2 on the first redelivery, … */
  attempt: number;
  /** The event's stream sequence. */
  sequence: number;
  /** The node that accepted it (EventIntake's origin), when it said. */
  origin?: string;
  /** The turn committed: remove the event from the stream (confirmed by the server). */
  ack(): Promise<void>;
  /** The turn still runs: restart the ack timer. */
  working(): void;
  /** Hand the event back to be delivered again, at once or after `delayMs`. */
  retry(delayMs?: number): void;
}

export class InstanceIntake {
  private constructor(
    private readonly consumer: Consumer,
    private readonly connection: ClusterConnection,
    private readonly stream: string,
    readonly name: string,
  ) {}

  static async open(options: InstanceIntakeOptions): Promise<InstanceIntake> {
    const { connection, names } = options;
    const name = names.intakeConsumer(options.agent, options.instanceKey);
    const ackWait = nanos(options.ackWaitMs ?? 10_000);
    try {
      await connection.jsm.consumers.add(names.intakeStream, {
        durable_name: name,
        filter_subject: names.intakeSubject(options.agent, options.instanceKey),
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        max_ack_pending: 1,
        ack_wait: ackWait,
      });
    } catch (error) {
      // Made before with another ack wait: take ours.
      await connection.jsm.consumers.update(names.intakeStream, name, { ack_wait: ackWait }).catch(() => {
        throw clusterUnavailable(`opening the intake of ${options.agent}/${options.instanceKey}`, error);
      });
    }
    const consumer = await connection.js.consumers.get(names.intakeStream, name).catch((error: unknown) => {
      throw clusterUnavailable(`opening the intake of ${options.agent}/${options.instanceKey}`, error);
    });
    return new InstanceIntake(consumer, connection, names.intakeStream, name);
  }

  /** The next event, waiting up to `waitMs` (default 5000, at least 1000: the client's floor) for one; undefined when none came. */
  async next(options: { waitMs?: number } = {}): Promise<IntakeDelivery | undefined> {
    let message: JsMsg | null;
    try {
      message = await this.consumer.next({ expires: Math.max(MIN_WAIT_MS, options.waitMs ?? 5000) });
    } catch (error) {
      throw clusterUnavailable(`reading the intake ${this.name}`, error);
    }
    if (message === null) return undefined;
    let event: AgentEvent;
    try {
      event = message.json<AgentEvent>();
    } catch (error) {
      // Nothing we publish fails to parse: park it rather than loop on it.
      message.term("not a JSON event");
      throw new SystemError(
        "E_CLUSTER_BAD_MESSAGE",
        `intake ${this.name}: message ${message.seq} is not a JSON event`,
        { cause: error },
      );
    }
    return delivery(message, event);
  }

  /** Delete this instance's consumer (its events stay in the stream for the next reader). */
  async remove(): Promise<void> {
    await this.connection.jsm.consumers.delete(this.stream, this.name).catch(() => undefined);
  }
}

function delivery(message: JsMsg, event: AgentEvent): IntakeDelivery {
  const origin = message.headers?.get("Goondan-Origin");
  return {
    event,
    ...(origin ? { origin } : {}),
    attempt: message.info.deliveryCount,
    sequence: message.seq,
    ack: async () => {
      try {
        await message.ackAck();
      } catch (error) {
        throw clusterUnavailable(`acknowledging event ${event.id}`, error);
      }
    },
    working: () => message.working(),
    retry: (delayMs) => message.nak(delayMs),
  };
}
