/**
 * Messages for later (`agents__schedule`: an event with `notBefore`) in a cluster. The owner of the target instance
 * takes such an event from the intake stream, stores it (its store and the instance's state log hold it, unanswered,
 * until its time) and acks it at once rather than when it is answered: left unacked, it would hold up every other
 * event of the instance until its time (an instance reads one event at a time). What keeps it findable instead is
 * this bucket (`gdn_<swarm>_later`, no TTL, a key `<agent>.<instance key>.<event>` per message, written before the ack,
 * removed once the event is answered): the orphan sweep claims the instances it names that no live node runs, and
 * the node that takes one over finds the messages in the state log it replays and waits for their times again
 * (`reconcile` then drops the keys of messages answered meanwhile).
 */
import type { KV } from "@nats-io/kv";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { IntakeDelivery } from "../intake/instance-intake.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import { openBucket } from "../nats/kv-bucket.ts";
import type { ClusterNames } from "../nats/names.ts";
import { decodeSubjectToken, subjectToken } from "../nats/subject-token.ts";

export class LaterEvents {
  private constructor(
    private readonly kv: KV,
    private readonly logger: Logger,
  ) {}

  static async open(options: {
    connection: ClusterConnection;
    names: ClusterNames;
    logger: Logger;
  }): Promise<LaterEvents> {
    const { connection, names } = options;
    const kv = await openBucket({
      connection,
      bucket: names.laterEventBucket,
      ttlMs: 0,
      description: "goondan messages for later",
    });
    return new LaterEvents(kv, options.logger);
  }

  /** The message is stored by its instance's owner: recorded here before its delivery is acked. */
  async keep(event: AgentEvent): Promise<void> {
    await this.kv.put(keyOf(event.agent, event.instanceKey, event.id), String(event.notBefore ?? 0));
  }

  /** The message was answered: nothing to find any more. */
  done(event: Pick<AgentEvent, "agent" | "instanceKey" | "id">): void {
    this.kv
      .delete(keyOf(event.agent, event.instanceKey, event.id))
      .catch((error: unknown) =>
        this.logger.debug(
          { eventId: event.id, error: describe(error).message },
          "could not drop a message for later from the cluster's list; the next owner of its instance does",
        ),
      );
  }

  /** Every instance with a message for later not answered yet. */
  async instances(): Promise<Array<{ agent: string; instanceKey: string }>> {
    const found = new Map<string, { agent: string; instanceKey: string }>();
    for await (const key of await this.kv.keys()) {
      const [agentToken = "", keyToken = ""] = key.split(".");
      const agent = decodeSubjectToken(agentToken);
      const instanceKey = decodeSubjectToken(keyToken);
      if (agent !== undefined && instanceKey !== undefined)
        found.set(`${agentToken}.${keyToken}`, { agent, instanceKey });
    }
    return [...found.values()];
  }

  /** The instance was taken over and `pending` are its messages still waiting: the keys of any other are dropped. */
  async reconcile(agent: string, instanceKey: string, pending: readonly string[]): Promise<void> {
    const keep = new Set(pending.map((id) => keyOf(agent, instanceKey, id)));
    const keys: string[] = [];
    for await (const key of await this.kv.keys(`${subjectToken(agent)}.${subjectToken(instanceKey)}.*`)) keys.push(key);
    await Promise.all(keys.filter((key) => !keep.has(key)).map((key) => this.kv.delete(key).catch(() => undefined)));
  }
}

/**
 * The owner took `delivery` in: when it is a message for later (stored now, due later), it is acked at once, so that
 * the instance's next events are not held up until its time, once the list names it (`later.keep`); left in flight
 * when that fails. `release` takes it out of the owner's events in flight; false when it is no longer (the instance
 * was lost meanwhile), and then it is not acked.
 */
export async function ackStoredForLater(
  delivery: IntakeDelivery,
  options: { later: Pick<LaterEvents, "keep"> | undefined; release: () => boolean },
): Promise<void> {
  const { event } = delivery;
  if (options.later === undefined || event.notBefore === undefined || event.notBefore <= Date.now()) return;
  try {
    await options.later.keep(event);
  } catch {
    return;
  }
  if (options.release()) await delivery.ack().catch(() => undefined); // not acked: delivered again, found stored
}

const keyOf = (agent: string, instanceKey: string, eventId: string) =>
  `${subjectToken(agent)}.${subjectToken(instanceKey)}.${subjectToken(eventId)}`;
