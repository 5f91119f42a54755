/**
 * The reader of one instance this node owns: its own durable consumer of the intake stream, opened once the events
 * the previous owner took and never acked are handed back, then one delivery at a time handed to `take` until the
 * instance stops here. A failed read is retried (NATS may be away for a while); a delivery that comes after the
 * instance stopped, or before the node is attached to its orchestrator, goes back to the stream at once.
 */
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { EventIntake } from "../intake/event-intake.ts";
import type { InstanceIntake, IntakeDelivery } from "../intake/instance-intake.ts";

/** An instance this node owns, with its reader of the intake stream. */
export interface OwnedInstance {
  agent: string;
  instanceKey: string;
  stopped: boolean;
  intake?: InstanceIntake;
  /** Its reader, until it stops. */
  reading?: Promise<void>;
}

/** Reads `owned`'s events until it stops; resolves then. */
export async function readOwnedEvents(
  owned: OwnedInstance,
  options: {
    intake: EventIntake;
    /** An event not acked nor kept working this long is delivered again. */
    ackWaitMs: number;
    logger: Logger;
    /** False until the node is attached to its orchestrator. */
    attached: () => boolean;
    take: (delivery: IntakeDelivery) => Promise<void>;
  },
): Promise<void> {
  const { agent, instanceKey } = owned;
  const { intake, logger } = options;
  while (!owned.stopped) {
    let delivery: IntakeDelivery | undefined;
    try {
      if (owned.intake === undefined) {
        // Events the previous owner took and never acked come here now, not after its ack wait.
        if (await intake.resetStale(agent, instanceKey))
          logger.info({ agent, instanceKey }, "took over an instance's unacked events");
        owned.intake = await intake.instance(agent, instanceKey, { ackWaitMs: options.ackWaitMs });
      }
      delivery = await owned.intake.next({ waitMs: 2000 });
    } catch (error) {
      if (owned.stopped) return;
      logger.warn({ agent, instanceKey, error: describe(error).message }, "cannot read an instance's events; retrying");
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    if (delivery === undefined) continue;
    if (owned.stopped || !options.attached()) {
      delivery.retry();
      return;
    }
    await options.take(delivery);
  }
}
