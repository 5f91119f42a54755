/**
 * What `goondan instance delete` settles before an instance's state goes: its accepted events that were never
 * answered, and those whose turn waits for approvals. Left as they were, the next `goondan run` would resume them on
 * a fresh, empty instance (running a half-done turn again from nothing) and would still offer their approvals in
 * `GET /v1/approvals`. Instead each pending approval is decided `deny` (by `goondan`, the reason naming the delete),
 * and each such event is answered once with `E_INSTANCE_DELETED`: an HTTP client asking `GET /v1/events/:id`, or an
 * agent that requested it (its resumed request reattaches to the stored answer), gets exactly one answer.
 */
import { failedOutcome } from "../../protocol/turn-outcome.ts";
import type { InstanceRef, Store } from "../../store/store.ts";

export interface AnsweredWaiting {
  /** Events answered E_INSTANCE_DELETED. */
  answered: number;
  /** Pending approvals decided `deny`. */
  denied: number;
}

export async function answerWaitingEvents(options: {
  store: Store;
  ref: InstanceRef;
  now?: number;
}): Promise<AnsweredWaiting> {
  const { store, ref } = options;
  const now = options.now ?? Date.now();
  const ours = (agent: string, instanceKey: string) => agent === ref.agent && instanceKey === ref.instanceKey;
  const reason = `${ref.agent}/${ref.instanceKey} was deleted (goondan instance delete)`;
  let denied = 0;
  // Deciding an event's last pending approval makes it unanswered again: it is answered below with the rest.
  for (const approval of await store.approvals({ swarm: ref.swarm, pending: true })) {
    if (!ours(approval.agent, approval.instanceKey)) continue;
    const decided = await store.decideApproval(ref.swarm, approval.id, {
      decision: "deny",
      reason,
      decidedAt: now,
      decidedBy: "goondan",
    });
    if (decided.type === "decided") denied += 1;
  }
  let answered = 0;
  for (const record of await store.unanswered(ref.swarm)) {
    const { event } = record;
    if (!ours(event.agent, event.instanceKey)) continue;
    const error = { code: "E_INSTANCE_DELETED", message: `${reason} before it answered event ${event.id}` };
    await store.answer(
      ref.swarm,
      event.id,
      failedOutcome({ agent: event.agent, instanceKey: event.instanceKey, eventId: event.id, error }),
    );
    answered += 1;
  }
  return { answered, denied };
}
