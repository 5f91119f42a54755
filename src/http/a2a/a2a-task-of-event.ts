/**
 * An A2A task read back from the store: a task is an accepted event, named `a2a_<task id>` when the executor sends
 * it, so a task outlives the orchestrator that started it. Its state is the event's (`accepted`/`running` working,
 * `ok` completed with the reply as its `response` artifact, `error` failed, `awaiting_approval` input-required), its
 * history the message that started it, its metadata the event, agent and instance, as the executor published them.
 */
import { type Artifact, type Message, Role, type Task, TaskState as State, type TaskState } from "@a2a-js/sdk";
import type { AcceptedEvent } from "../../orchestrator/routing/event-state.ts";
import { agentMessage, textPart } from "./a2a-parts.ts";

/** What the ids of the events the A2A surface sends start with. */
export const A2A_EVENT_PREFIX = "a2a_";

export const a2aEventId = (taskId: string): string => `${A2A_EVENT_PREFIX}${taskId}`;

/** The states after which a task changes no more. */
export const ENDED_STATES = new Set<TaskState>([
  State.TASK_STATE_COMPLETED,
  State.TASK_STATE_FAILED,
  State.TASK_STATE_CANCELED,
  State.TASK_STATE_REJECTED,
]);

/** The task's id (the event's id less the prefix). */
export const taskIdOf = (accepted: AcceptedEvent): string => accepted.event.id.slice(A2A_EVENT_PREFIX.length);

export function stateOfEvent(accepted: AcceptedEvent): TaskState {
  switch (accepted.state.state) {
    case "ok":
      return State.TASK_STATE_COMPLETED;
    case "error":
      return State.TASK_STATE_FAILED;
    case "awaiting_approval":
      return State.TASK_STATE_INPUT_REQUIRED;
    default:
      return State.TASK_STATE_WORKING;
  }
}

/** The text the status message of a state says (none while working). */
export function statusText(accepted: AcceptedEvent, approvalIds?: readonly string[]): string | undefined {
  const state = accepted.state;
  if (state.state === "ok") return state.response;
  if (state.state === "error") return state.error?.message ?? "the turn failed";
  if (state.state === "awaiting_approval")
    return `waiting for approval of ${(approvalIds ?? state.approvalIds ?? []).join(", ")}`;
  return undefined;
}

export function responseArtifact(taskId: string, contextId: string, response: string): Artifact {
  return {
    artifactId: `${taskId}-response`,
    name: "response",
    description: "the swarm's reply",
    parts: agentMessage({ text: response, taskId, contextId }).parts,
    metadata: {},
    extensions: [],
  };
}

/** The message that started the task, as it was sent (its id kept in the event's metadata). */
function startingMessage(accepted: AcceptedEvent, taskId: string): Message {
  const messageId = accepted.event.metadata.messageId;
  return {
    messageId: typeof messageId === "string" ? messageId : `${taskId}-input`,
    role: Role.ROLE_USER,
    taskId,
    contextId: accepted.event.instanceKey,
    parts: [textPart(accepted.event.input)],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The task of an accepted event, as it stands. */
export function taskOfEvent(accepted: AcceptedEvent): Task {
  const taskId = taskIdOf(accepted);
  const contextId = accepted.event.instanceKey;
  const state = stateOfEvent(accepted);
  const text = statusText(accepted);
  return {
    id: taskId,
    contextId,
    status: {
      state,
      message: text === undefined ? undefined : agentMessage({ text, taskId, contextId }),
      timestamp: new Date(accepted.acceptedAt).toISOString(),
    },
    artifacts: accepted.state.state === "ok" ? [responseArtifact(taskId, contextId, accepted.state.response)] : [],
    history: [startingMessage(accepted, taskId)],
    metadata: { eventId: accepted.event.id, agent: accepted.event.agent, instanceKey: contextId },
  };
}
