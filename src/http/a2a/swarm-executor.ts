/**
 * The A2A agent executor of a swarm: a task is an accepted event. A message starts one: it is sent as an event
 * (named `a2a_<task id>`, so the task is read back from the store after a restart: stored-task-store.ts) to the
 * entry agent's instance named by the message's `contextId`, and once it is durably accepted the task is
 * published (`submitted`, its `eventId` in metadata), then `working`, then the event's outcome: `completed` with the
 * reply as an artifact and as the status message, `failed` with the turn's error, or `input-required` while the turn
 * waits for approvals (their ids in the status metadata). A follow-up message to an `input-required` task decides
 * those approvals (a2a-parts.ts) through the same durable approvals as `POST /v1/approvals/:id`, and the task
 * follows the resumed turn. Canceling an `input-required` task denies its approvals; a running event cannot be
 * canceled (an accepted event runs to its end): that is A2A's TaskNotCancelableError.
 */
import { type Task, type TaskState, TaskState as State } from "@a2a-js/sdk";
import { TaskNotCancelableError } from "@a2a-js/sdk/errors";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { ApiBackend } from "../api-backend.ts";
import { checkApprover } from "../auth/approver.ts";
import { ApiError } from "../api-error.ts";
import { awaitOutcome } from "../routes/events.ts";
import { agentMessage, decisionOf, messageText } from "./a2a-parts.ts";
import { a2aEventId, responseArtifact } from "./a2a-task-of-event.ts";

export class SwarmExecutor implements AgentExecutor {
  /** The event of each task this process started or resumed, until the task ends. */
  private readonly eventOfTask = new Map<string, string>();
  /** The tasks whose execution runs now (their table copy is the newest). */
  private readonly executing = new Set<string>();

  constructor(private readonly backend: ApiBackend) {}

  /** Whether this process runs task `taskId` now. */
  running(taskId: string): boolean {
    return this.executing.has(taskId);
  }

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.executing.add(context.taskId);
    try {
      await this.run(context, bus);
    } finally {
      this.executing.delete(context.taskId);
    }
  };

  private async run(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const status = (state: TaskState, text?: string, metadata: Record<string, unknown> = {}) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: text === undefined ? undefined : agentMessage({ text, taskId, contextId }),
            timestamp: new Date().toISOString(),
          },
          metadata,
        }),
      );
    const existing = context.task;
    if (existing?.status?.state === State.TASK_STATE_INPUT_REQUIRED) {
      bus.publish(AgentEvent.task(existing));
      const outcome = await this.decide({ task: existing, message: context.userMessage });
      if (typeof outcome === "string") return status(State.TASK_STATE_INPUT_REQUIRED, outcome);
      status(State.TASK_STATE_WORKING);
      return this.settle({ ended: await outcome, status, bus, taskId, contextId });
    }
    // The event is named after the task, so the task is read back from the store after a restart.
    const submitted = this.backend.orchestrator.submit({
      input: messageText(context.userMessage),
      instanceKey: contextId,
      eventId: a2aEventId(taskId),
      metadata: { via: "a2a", taskId, messageId: context.userMessage.messageId },
    });
    await submitted.accepted;
    this.eventOfTask.set(taskId, submitted.eventId);
    const task: Task = {
      id: taskId,
      contextId,
      status: { state: State.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [context.userMessage],
      metadata: { eventId: submitted.eventId, agent: submitted.agent, instanceKey: submitted.instanceKey },
    };
    bus.publish(AgentEvent.task(task));
    status(State.TASK_STATE_WORKING);
    const ended = await awaitOutcome(submitted, this.backend.orchestrator.swarm.policy.requestTimeoutMs);
    return this.settle({ ended, status, bus, taskId, contextId });
  }

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const pending = await this.pendingOf(taskId);
    if (pending.length === 0)
      throw new TaskNotCancelableError(
        `task ${taskId} is an accepted event that runs to its end; it cannot be canceled`,
      );
    // Canceling denies: a decision like any other, so the same check (approve scope, approver = credential).
    const who = checkApprover(undefined);
    if (!who.ok) throw new TaskNotCancelableError(`${who.code}: ${who.message}`);
    for (const approval of pending)
      await this.backend.orchestrator.approvals.decide({
        id: approval.id,
        decision: "deny",
        reason: "the A2A task was canceled",
        ...(who.approver === undefined ? {} : { approver: who.approver }),
      });
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: pending[0]?.instanceKey ?? "",
        status: { state: State.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: { deniedApprovals: pending.map((approval) => approval.id) },
      }),
    );
    this.eventOfTask.delete(taskId);
    bus.finished();
  };

  private async pendingOf(taskId: string) {
    const eventId = this.eventOfTask.get(taskId) ?? a2aEventId(taskId);
    const pending = await this.backend.orchestrator.approvals.pending();
    return pending.filter((approval) => approval.eventId === eventId);
  }

  /** Decides the task's approvals as the message says; a string when it says nothing to act on. */
  private async decide(options: {
    task: Task;
    message: RequestContext["userMessage"];
  }): Promise<string | Promise<TurnOutcome | ApiError>> {
    const eventId = options.task.metadata?.eventId;
    if (typeof eventId === "string") this.eventOfTask.set(options.task.id, eventId);
    const decision = decisionOf(options.message);
    if (decision === undefined) return 'answer "approve" or "deny" (or a data part {"decision": "approve" | "deny"})';
    const pending = await this.pendingOf(options.task.id);
    if (pending.length === 0) return "no approval of this task is pending";
    const who = checkApprover(undefined);
    if (!who.ok) return `${who.code}: ${who.message}`;
    let outcome: Promise<TurnOutcome> | undefined;
    let refused: string | undefined;
    for (const approval of pending) {
      const answer = await this.backend.orchestrator.approvals.decide({
        id: approval.id,
        ...decision,
        ...(who.approver === undefined ? {} : { approver: who.approver }),
        wait: true,
      });
      if (answer.type === "decided") outcome = answer.outcome ?? outcome;
      if (answer.type === "forbidden")
        refused = `E_APPROVAL_FORBIDDEN: approval ${approval.id} may be decided only by ${(approval.approvers ?? []).join(", ")}`;
    }
    if (refused !== undefined && outcome === undefined) return refused;
    if (outcome === undefined) return "the decision was recorded; other approvals of this task are still pending";
    const timeoutMs = this.backend.orchestrator.swarm.policy.requestTimeoutMs;
    return Promise.race([
      outcome,
      new Promise<ApiError>((resolve) =>
        setTimeout(
          () => resolve(new ApiError({ status: 504, code: "E_AGENT_REQUEST_TIMEOUT", message: "no reply in time" })),
          timeoutMs,
        ).unref(),
      ),
    ]);
  }

  private settle(options: {
    ended: TurnOutcome | ApiError;
    status: (state: TaskState, text?: string, metadata?: Record<string, unknown>) => void;
    bus: ExecutionEventBus;
    taskId: string;
    contextId: string;
  }): void {
    const { ended, status, bus, taskId, contextId } = options;
    if (ended instanceof ApiError) {
      status(State.TASK_STATE_FAILED, `${ended.code}: ${ended.message}`, { code: ended.code });
    } else if (ended.status === "awaiting_approval") {
      status(State.TASK_STATE_INPUT_REQUIRED, `waiting for approval of ${(ended.approvalIds ?? []).join(", ")}`, {
        approvalIds: ended.approvalIds ?? [],
        eventId: ended.eventId,
      });
      return;
    } else if (ended.status === "error") {
      status(State.TASK_STATE_FAILED, ended.error?.message ?? "the turn failed", { code: ended.error?.code ?? "" });
    } else {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: responseArtifact(taskId, contextId, ended.response),
          append: false,
          lastChunk: true,
          metadata: {},
        }),
      );
      status(State.TASK_STATE_COMPLETED, ended.response, { eventId: ended.eventId });
    }
    this.eventOfTask.delete(taskId);
    bus.finished();
  }
}
