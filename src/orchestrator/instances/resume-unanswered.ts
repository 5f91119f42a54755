/**
 * Resuming after an orchestrator restart: every accepted, unanswered event the store holds for the swarm is queued
 * again, in acceptance order per instance, marked as resumed (its turn picks up from what was committed); every
 * request among them gets its reply route (correlationId → requesting instance) and deadline back, and one whose
 * deadline passed while nobody ran is answered E_AGENT_REQUEST_TIMEOUT. Instances holding results their model has not
 * seen (replies to async requests) are started, so they are shown. An instance whose turn waits for approvals is held
 * first; an event whose approvals were all decided is unanswered again and resumes with the decisions.
 */
import type { Clock } from "../../shared/clock.ts";
import type { Logger } from "../../shared/logger.ts";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import { failedOutcome, type TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { Approval } from "../../protocol/approval.ts";
import type { InboxRecord, Store } from "../../store/store.ts";
import type { PendingRequests } from "../routing/pending-requests.ts";
import type { SwarmView } from "../swarm-view.ts";
import type { Instance } from "./instance.ts";
import type { InboxEntry } from "./instance-queue.ts";

export interface ResumeOptions {
  store: Store;
  view: SwarmView;
  clock: Clock;
  logger: Logger;
  pending: PendingRequests;
  instance: (agent: string, instanceKey: string) => Instance;
}

export async function resumeUnanswered(options: ResumeOptions): Promise<{ resumed: number }> {
  const { view, logger, store } = options;
  let resumed = 0;
  // An instance whose turn waits for approvals delivers nothing else until they are decided.
  for (const approval of await store.approvals({ swarm: view.instanceKey, pending: true })) {
    if (view.agents.has(approval.agent)) options.instance(approval.agent, approval.instanceKey).awaitApproval();
  }
  const gone = new Set<string>();
  for (const record of await store.unanswered(view.instanceKey)) {
    const { event } = record;
    if (!view.agents.has(event.agent)) {
      if (!gone.has(event.agent))
        logger.warn(
          { agent: event.agent },
          "unanswered events of an agent no longer in the swarm are kept in the store",
        );
      gone.add(event.agent);
      continue;
    }
    if (event.replyTo && event.deadline !== undefined) {
      if (event.deadline <= options.clock.now()) {
        const error = {
          code: "E_AGENT_REQUEST_TIMEOUT",
          message: `${event.agent}/${event.instanceKey} did not answer before the deadline (the orchestrator was down)`,
        };
        void store.answer(
          view.instanceKey,
          event.id,
          failedOutcome({ agent: event.agent, instanceKey: event.instanceKey, eventId: event.id, error }),
        );
        logger.warn(
          { eventId: event.id, correlationId: event.replyTo.correlationId },
          "request expired while the orchestrator was down; answered as timed out",
        );
        continue;
      }
      options.pending.add({
        correlationId: event.replyTo.correlationId,
        requester: event.replyTo.target,
        agent: event.agent,
        instanceKey: event.instanceKey,
        eventId: event.id,
        deadline: event.deadline,
        blocking: event.replyTo.async !== true,
      });
    }
    options.instance(event.agent, event.instanceKey).enqueue(resumedEntry(record));
    resumed++;
  }
  for (const stored of await store.instances(view.instanceKey)) {
    if (stored.pendingResults > 0 && view.agents.has(stored.agent))
      options.instance(stored.agent, stored.instanceKey).ensureStarted();
  }
  if (resumed > 0) logger.info({ resumed }, "resumed accepted events");
  return { resumed };
}

/** An accepted, unanswered event as its instance queues it again: each delivery so far ended in a crash. */
export function resumedEntry(record: InboxRecord): InboxEntry {
  const { event, crashes, acceptedAt } = record;
  return {
    event,
    crashes,
    deliveries: crashes,
    resumed: true,
    acceptedAt,
    ...(record.lastCrash === undefined ? {} : { lastCrash: record.lastCrash }),
    ...(record.approvals === undefined ? {} : { approvals: record.approvals }),
  };
}

/**
 * Cluster mode: an event the cluster delivers to the node that owns its instance. A new event is accepted as on one
 * host; one the store holds unanswered (delivered again after the node lost and regained the instance) is queued
 * again; one answered already is not run again and its stored outcome is returned. One whose turn stopped for
 * approvals (a call held for a person, a time or a signal: the node that ran it died, or lost it) is not answered:
 * the instance holds, `held` arms the approvals' deadlines here, and the event stays the cluster's to deliver (its
 * stream keeps it unacked) until they are decided and its turn goes on here.
 */
export async function acceptDelivered(options: {
  store: Store;
  swarm: string;
  event: AgentEvent;
  now: number;
  instance: () => Instance;
  held: () => Promise<unknown>;
}): Promise<{ outcome?: TurnOutcome }> {
  const record = await options.store.inboxRecord(options.swarm, options.event.id);
  if (record?.outcome?.status === "awaiting_approval") {
    // Unless its approvals were decided meanwhile (a signal, a deadline), which queued it again.
    const instance = options.instance();
    if (!instance.holds(options.event.id)) instance.awaitApproval();
    await options.held();
    return {};
  }
  if (record?.outcome) return { outcome: record.outcome };
  if (record === undefined) await options.instance().accept(options.event, options.now);
  else options.instance().enqueue(resumedEntry(record));
  return {};
}

/**
 * Cluster mode: this node took the instance over and replayed its state. A turn of it waiting for approvals holds it
 * (`arm` arms their deadlines here), unless a decision queued that turn again meanwhile; its messages for later (acked
 * from the cluster's stream once their first owner stored them: src/cluster/instances/later-events.ts) wait for their
 * times again, or run now when due. Resolves with the ids of those messages.
 */
export async function resumeTakenOver(options: {
  store: Store;
  swarm: string;
  agent: string;
  instanceKey: string;
  instance: () => Instance;
  arm: () => Promise<Approval[]>;
}): Promise<string[]> {
  const { agent, instanceKey } = options;
  const waiting = await options.arm();
  if (waiting.length > 0 && !waiting.some((approval) => options.instance().holds(approval.eventId)))
    options.instance().awaitApproval();
  const later = (await options.store.unanswered(options.swarm)).filter(
    ({ event }) => event.agent === agent && event.instanceKey === instanceKey && event.notBefore !== undefined,
  );
  for (const record of later) options.instance().enqueue(resumedEntry(record));
  return later.map(({ event }) => event.id);
}
