/**
 * The messages of an A2A task's life, each at its stored position (`<cursor>.<n>`, stream-position.ts), rebuilt from
 * its event and the stored runtime events of its trace, so a stream of it (message:stream, a follow-up that decides
 * its approvals, a subscription) resumes after any of them, across an orchestrator restart too:
 * - `0.1` the task, submitted; `0.2` working (published as soon as the event is accepted);
 * - at each end of the event's own turn that stands (one not followed by the turn starting again, which is a
 *   redelivery): `C.1` the `response` artifact when it completed, `C.2` its status (completed, failed, or
 *   input-required), and, once a decision let it go on, `C.3` working again; `C` is that turn end's cursor;
 * - an outcome with no turn end of its own (the event given up) is at the trace's last cursor, `.5` and `.6`.
 * A stream ends at a status that ends or interrupts the task (completed, failed, input-required).
 */
import { type StreamResponse, type Task, TaskState as State, type TaskState } from "@a2a-js/sdk";
import type { AcceptedEvent } from "../../orchestrator/routing/event-state.ts";
import type { StoredRuntimeEvent } from "../../store/store.ts";
import type { StreamPosition } from "../stream-position.ts";
import { agentMessage } from "./a2a-parts.ts";
import { ENDED_STATES, responseArtifact, statusText, taskIdOf, taskOfEvent } from "./a2a-task-of-event.ts";

export interface TaskEntry {
  position: StreamPosition;
  response: StreamResponse;
  /** The state it shows (an artifact: undefined). */
  state?: TaskState;
  /** A stream ends with it. */
  ends: boolean;
}

/** The task's messages, oldest first, from its event and its trace's stored events (oldest first). */
export function taskHistory(accepted: AcceptedEvent, rows: readonly StoredRuntimeEvent[]): TaskEntry[] {
  const task = taskOfEvent(accepted);
  const taskId = taskIdOf(accepted);
  const contextId = task.contextId;
  const at = (cursor: number, offset: number): StreamPosition => ({ cursor, offset });
  const status = (state: TaskState, text?: string, metadata: Record<string, unknown> = {}) =>
    ({
      payload: {
        $case: "statusUpdate",
        value: {
          taskId,
          contextId,
          status: {
            state,
            message: text === undefined ? undefined : agentMessage({ text, taskId, contextId }),
            timestamp: task.status?.timestamp,
          },
          metadata,
        },
      },
    }) as StreamResponse;
  const submitted: Task = {
    ...task,
    status: { state: State.TASK_STATE_SUBMITTED, message: undefined, timestamp: task.status?.timestamp },
    artifacts: [],
  };
  const entries: TaskEntry[] = [
    {
      position: at(0, 1),
      response: { payload: { $case: "task", value: submitted } },
      state: State.TASK_STATE_SUBMITTED,
      ends: false,
    },
    { position: at(0, 2), response: status(State.TASK_STATE_WORKING), state: State.TASK_STATE_WORKING, ends: false },
  ];
  const own = rows.filter(({ event }) => event.eventId === accepted.event.id);
  const final = ENDED_STATES.has(task.status?.state ?? 0);
  let requested: string[] = [];
  let endsFound = false;
  own.forEach(({ cursor, event }, index) => {
    if (event.type === "approval.requested" && typeof event.data?.approvalId === "string")
      requested.push(event.data.approvalId);
    if (event.type !== "turn.completed" && event.type !== "turn.failed") return;
    const later = own.slice(index + 1);
    const startsAgain = later.some((row) => row.event.type === "turn.started");
    if (event.data?.finishReason === "awaiting_approval") {
      const ids = requested;
      requested = [];
      entries.push({
        position: at(cursor, 2),
        response: status(State.TASK_STATE_INPUT_REQUIRED, `waiting for approval of ${ids.join(", ")}`, {
          approvalIds: ids,
          eventId: accepted.event.id,
        }),
        state: State.TASK_STATE_INPUT_REQUIRED,
        ends: true,
      });
      if (startsAgain || accepted.state.state !== "awaiting_approval")
        entries.push({
          position: at(cursor, 3),
          response: status(State.TASK_STATE_WORKING),
          state: State.TASK_STATE_WORKING,
          ends: false,
        });
      return;
    }
    // A turn end followed by the turn starting again was cut short (a crash, a restart): the event ran again.
    if (
      startsAgain ||
      !final ||
      later.some((row) => row.event.type === "turn.completed" || row.event.type === "turn.failed")
    )
      return;
    endsFound = true;
    entries.push(...finalEntries(cursor, 1));
  });
  if (final && !endsFound) entries.push(...finalEntries(rows.at(-1)?.cursor ?? 0, 5));
  return entries;

  function finalEntries(cursor: number, first: number): TaskEntry[] {
    const state = task.status?.state ?? State.TASK_STATE_FAILED;
    const text = statusText(accepted);
    const last: TaskEntry = {
      position: at(cursor, first + 1),
      response: status(
        state,
        text,
        accepted.state.state === "error" ? { code: accepted.state.error?.code ?? "" } : { eventId: accepted.event.id },
      ),
      state,
      ends: true,
    };
    if (accepted.state.state !== "ok") return [last];
    const artifact = responseArtifact(taskId, contextId, accepted.state.response);
    return [
      {
        position: at(cursor, first),
        response: {
          payload: {
            $case: "artifactUpdate",
            value: { taskId, contextId, artifact, append: false, lastChunk: true, metadata: {} },
          },
        },
        ends: false,
      },
      last,
    ];
  }
}

/** The position of a message the SDK's live stream sends: that of the entry showing the same (the newest one). */
export function positionOf(response: StreamResponse, entries: readonly TaskEntry[]): StreamPosition | undefined {
  const payload = response.payload;
  if (payload === undefined || payload.$case === "message") return undefined;
  const state =
    payload.$case === "task"
      ? payload.value.status?.state
      : payload.$case === "statusUpdate"
        ? payload.value.status?.state
        : undefined;
  const matching = entries.filter((entry) =>
    payload.$case === "artifactUpdate" ? entry.response.payload?.$case === "artifactUpdate" : entry.state === state,
  );
  return matching.at(-1)?.position;
}
