/**
 * Resuming after an orchestrator restart: every accepted, unanswered event found in the inboxes under the
 * state root is queued again, in acceptance order per instance, and every pending request among them
 * gets its reply route (correlationId → requesting instance) and deadline back. Requests whose deadline
 * passed while nobody ran are dropped with a log line. Replies that were held for an instance without a
 * child are held again, and the instance is started for them.
 */
import type { Clock } from "../../shared/clock.ts";
import type { Logger } from "../../shared/logger.ts";
import { DurableInbox, findInboxDirs } from "./durable-inbox.ts";
import type { Instance } from "./instance.ts";
import type { PendingRequests } from "../routing/pending-requests.ts";
import type { SwarmView } from "../swarm-view.ts";

export interface ResumeOptions {
  stateRoot: string;
  view: SwarmView;
  clock: Clock;
  logger: Logger;
  pending: PendingRequests;
  instance: (agent: string, instanceKey: string) => Instance;
}

export function resumeInboxes(options: ResumeOptions): { resumed: number } {
  const { view, logger } = options;
  let resumed = 0;
  for (const dir of findInboxDirs({ stateRoot: options.stateRoot, swarmInstanceKey: view.instanceKey })) {
    const peek = new DurableInbox(dir).load();
    const owner = peek.entries[0]?.event ?? peek.replies[0];
    if (!owner) continue;
    if (!view.agents.has(owner.agent)) {
      logger.warn({ agent: owner.agent, dir }, "inbox of an agent no longer in the swarm left on disk");
      continue;
    }
    // Load through the supervisor's own inbox, so that it knows which entries are still unanswered.
    const supervisor = options.instance(owner.agent, owner.instanceKey);
    const { entries, replies, unreadable } = supervisor.inbox.load();
    if (unreadable > 0) logger.warn({ dir, unreadable }, "unreadable inbox journal lines skipped (never acknowledged)");
    if (replies.length > 0) logger.info({ agent: owner.agent, instanceKey: owner.instanceKey, replies: replies.length }, "resumed replies held for an instance");
    supervisor.resumeReplies(replies);
    for (const entry of entries) {
      const { event } = entry;
      if (event.replyTo && event.deadline !== undefined) {
        if (event.deadline <= options.clock.now()) {
          supervisor.inbox.remove(entry);
          logger.warn({ eventId: event.id, correlationId: event.replyTo.correlationId }, "request expired while the orchestrator was down; dropped");
          continue;
        }
        options.pending.add({ correlationId: event.replyTo.correlationId, requester: event.replyTo.target, agent: event.agent, instanceKey: event.instanceKey, eventId: event.id, deadline: event.deadline });
      }
      supervisor.enqueue(entry);
      resumed++;
    }
  }
  if (resumed > 0) logger.info({ resumed }, "resumed accepted events");
  return { resumed };
}
