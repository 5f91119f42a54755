/**
 * An A2A task's stream read from the store (a2a-task-history.ts): the messages past a client's position, then each
 * new one as the event moves on, to the first that ends a stream. A stream resumed with `Last-Event-ID` and a
 * subscription to a task this orchestrator does not run (it restarted since) are served this way; the positions of
 * the SDK's live messages come from the same history.
 */
import type { AcceptedEvent } from "../../orchestrator/routing/event-state.ts";
import type { ApiBackend } from "../api-backend.ts";
import { comparePositions, type StreamPosition } from "../stream-position.ts";
import { a2aEventId } from "./a2a-task-of-event.ts";
import { type TaskEntry, taskHistory } from "./a2a-task-history.ts";
import { storeWake } from "../store-wake.ts";

/** The event of task `taskId`, undefined when the store holds none. */
export async function taskEvent(backend: ApiBackend, taskId: string): Promise<AcceptedEvent | undefined> {
  const eventId = a2aEventId(taskId);
  const found = await backend.orchestrator.acceptedEvents({ idPrefix: eventId, limit: 10 });
  return found.find((accepted) => accepted.event.id === eventId);
}

/** The task's messages as the store has them now. */
export async function taskEntries(
  backend: ApiBackend,
  taskId: string,
): Promise<{ accepted: AcceptedEvent; entries: TaskEntry[] } | undefined> {
  const accepted = await taskEvent(backend, taskId);
  if (accepted === undefined) return undefined;
  const rows = await backend.orchestrator.runtimeEvents({ traceId: accepted.event.traceId }).catch(() => []);
  return { accepted, entries: taskHistory(accepted, rows) };
}

/**
 * Sends the task's messages past `after` until one that ends the stream (or the client goes). False when the store
 * holds no such task.
 */
export async function streamStoredTask(options: {
  backend: ApiBackend;
  taskId: string;
  after: StreamPosition;
  send: (entry: TaskEntry) => void;
  closed: Promise<void>;
}): Promise<boolean> {
  const { backend, taskId } = options;
  let last = options.after;
  const wake = storeWake(backend, options.closed);
  try {
    for (let first = true; !wake.gone; first = false) {
      const found = await taskEntries(backend, taskId);
      if (found === undefined) return !first;
      // The client has the message that ended its stream: nothing follows it.
      if (found.entries.some((entry) => entry.ends && comparePositions(entry.position, options.after) === 0))
        return true;
      for (const entry of found.entries) {
        if (comparePositions(entry.position, last) <= 0) continue;
        options.send(entry);
        last = entry.position;
        if (entry.ends) return true;
      }
      await wake.next();
    }
    return true;
  } finally {
    wake.stop();
  }
}
