/**
 * Where an accepted event stands, read from the store (this node's, or on a cluster node the furthest any node
 * knows), and a wait for its final state: what the resumed streams answer once an orchestrator restart forgot the
 * stream itself. The wait looks again whenever store-wake.ts says there may be news.
 */
import type { EventState } from "../protocol/api-wire.ts";
import type { ApiBackend } from "./api-backend.ts";
import { storeWake } from "./store-wake.ts";

export const isFinalState = (state: EventState | undefined): boolean =>
  state !== undefined && state.state !== "accepted" && state.state !== "running";

export async function readEventState(backend: ApiBackend, eventId: string): Promise<EventState | undefined> {
  if (backend.cluster) return (await backend.cluster.reads.eventState(eventId)).state as EventState | undefined;
  return backend.orchestrator.eventState(eventId);
}

/** The event's final state, or undefined when `closed` resolved first (the client went away). */
export async function finalEventState(options: {
  backend: ApiBackend;
  eventId: string;
  state?: EventState;
  closed: Promise<void>;
}): Promise<EventState | undefined> {
  const { backend, eventId } = options;
  const wake = storeWake(backend, options.closed);
  try {
    let state = options.state ?? (await readEventState(backend, eventId));
    while (!isFinalState(state) && !wake.gone) {
      await wake.next();
      state = await readEventState(backend, eventId);
    }
    return isFinalState(state) ? state : undefined;
  } finally {
    wake.stop();
  }
}
