/**
 * Where an accepted event stands, as `GET /v1/events/:eventId` answers it: read from the store (its inbox record,
 * with the outcome once answered), so an event accepted before an orchestrator restart is found too. `accepted`
 * until a child runs its turn, `running` while one does, then `ok` or `error` (the outcome's status) with the
 * outcome itself: exactly what `"wait": true` would have answered.
 */
import type { EventState } from "../../protocol/api-wire.ts";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { InboxRecord, Store } from "../../store/store.ts";

export type { EventState };

export function eventStateOf(options: {
  eventId: string;
  record: InboxRecord | undefined;
  running: boolean;
}): EventState | undefined {
  const { record, eventId } = options;
  if (record === undefined) return undefined;
  if (record.outcome !== undefined) {
    const { eventId: _answered, ...outcome } = record.outcome;
    return { eventId, state: outcome.status, ...outcome };
  }
  return { eventId, state: options.running ? "running" : "accepted" };
}

/** An accepted event as the surfaces that name their events read it back (OrchestratorApi.acceptedEvents). */
export interface AcceptedEvent {
  event: AgentEvent;
  /** Epoch ms. */
  acceptedAt: number;
  state: EventState;
}

/** The newest accepted events of `swarm` whose id starts with `idPrefix`, newest first, with where each stands. */
/** Where an accepted event stands; undefined when the store never accepted it. */
export async function readEventState(
  store: Store,
  swarm: string,
  eventId: string,
  live: ReadonlyMap<string, { inFlight?: { event: { id: string } } | undefined }>,
): Promise<EventState | undefined> {
  const record = await store.inboxRecord(swarm, eventId);
  const running = [...live.values()].some((instance) => instance.inFlight?.event.id === eventId);
  return eventStateOf({ eventId, record, running });
}

export async function readAcceptedEvents(
  store: Store,
  swarm: string,
  query: { idPrefix: string; limit: number },
  /** The live instances (an event one of them runs is `running`). */
  live: ReadonlyMap<string, { inFlight?: { event: { id: string } } | undefined }>,
): Promise<AcceptedEvent[]> {
  const inFlight = new Set([...live.values()].map((instance) => instance.inFlight?.event.id));
  const records = await store.eventsByIdPrefix(swarm, query);
  return records.map((record) => ({
    event: record.event,
    acceptedAt: record.acceptedAt,
    state: eventStateOf({ eventId: record.event.id, record, running: inFlight.has(record.event.id) }) as EventState,
  }));
}

/** The events among `records` accepted to be delivered later (`AgentEvent.notBefore` after `now`), soonest first. */
export function notYetDue(records: readonly InboxRecord[], now: number): InboxRecord["event"][] {
  return records
    .map((record) => record.event)
    .filter((event) => event.notBefore !== undefined && event.notBefore > now)
    .sort((left, right) => (left.notBefore ?? 0) - (right.notBefore ?? 0));
}
