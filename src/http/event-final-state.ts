/**
 * Where an accepted event stands, read from the store (this node's, or on a cluster node the furthest any node
 * knows), and a wait for its final state: what the resumed streams answer once an orchestrator restart forgot the
 * stream itself. The wait looks again after every batch of this node's runtime events (the turn's own end is one)
 * and every two seconds (on a cluster node the turn may run on another node).
 */
import type { EventState } from "../protocol/api-wire.ts";
import type { ApiBackend } from "./api-backend.ts";

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
  let gone = false;
  void options.closed.then(() => (gone = true));
  let state = options.state ?? (await readEventState(backend, eventId));
  let wake: () => void = () => {};
  const stop = backend.orchestrator.onRuntimeEvents(() => wake());
  try {
    while (!isFinalState(state) && !gone) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, 2000);
        }),
        options.closed,
      ]);
      clearTimeout(timer);
      state = await readEventState(backend, eventId);
    }
  } finally {
    stop();
  }
  return isFinalState(state) ? state : undefined;
}
