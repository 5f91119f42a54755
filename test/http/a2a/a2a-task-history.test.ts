/**
 * An A2A task's messages at their stored positions (src/http/a2a/a2a-task-history.ts), from its event and its
 * trace's runtime events: submitted and working at the start; at a turn end held for approval, input-required, then
 * working again once decided; a turn cut short and run again adds nothing; the completed turn gives the response
 * artifact and the completed status at its cursor; the live SDK messages are placed at the same positions.
 */
import { describe, expect, it } from "bun:test";
import { TaskState } from "@a2a-js/sdk";
import type { AcceptedEvent } from "../../../src/orchestrator/routing/event-state.ts";
import type { RuntimeEvent } from "../../../src/protocol/runtime-event.ts";
import { positionOf, taskHistory } from "../../../src/http/a2a/a2a-task-history.ts";
import { taskOfEvent } from "../../../src/http/a2a/a2a-task-of-event.ts";

const EVENT = "a2a_task-1";
const accepted = (state: AcceptedEvent["state"]): AcceptedEvent => ({
  event: {
    id: EVENT,
    type: "user.input",
    input: "hello",
    agent: "coordinator",
    instanceKey: "ctx",
    source: { kind: "api", name: "api" },
    traceId: "t",
    callChain: [],
    metadata: { messageId: "m1" },
    createdAt: "2026-11-28T00:00:00.000Z",
  },
  acceptedAt: 0,
  state,
});
const row = (cursor: number, type: RuntimeEvent["type"], data?: RuntimeEvent["data"]) => ({
  cursor,
  event: {
    type,
    at: "2026-11-28T00:00:00.000Z",
    agent: "coordinator",
    instanceKey: "ctx",
    traceId: "t",
    spanId: "s",
    eventId: EVENT,
    ...(data === undefined ? {} : { data }),
  } as RuntimeEvent,
});
const outcome = { agent: "coordinator", instanceKey: "ctx", eventId: EVENT, turnId: "u", finishReason: "stop" };

const described = (entries: ReturnType<typeof taskHistory>) =>
  entries.map(({ position, response, ends }) => {
    const payload = response.payload;
    const state =
      payload?.$case === "task"
        ? payload.value.status?.state
        : payload?.$case === "statusUpdate"
          ? payload.value.status?.state
          : undefined;
    const what = payload?.$case === "artifactUpdate" ? "artifact" : `${payload?.$case} ${TaskState[state ?? 0]}`;
    return `${position.cursor}.${position.offset} ${what}${ends ? " (ends)" : ""}`;
  });

describe("taskHistory", () => {
  it("places each state of a task's life at a stored position, skipping a turn that ran again", () => {
    const rows = [
      row(3, "turn.started"),
      row(5, "approval.requested", { approvalId: "apv_1" }),
      row(6, "turn.completed", { finishReason: "awaiting_approval" }),
      row(9, "turn.started"),
      row(11, "turn.failed", { finishReason: "aborted" }),
      row(14, "turn.started"),
      row(17, "turn.completed", { finishReason: "stop" }),
    ];
    const entries = taskHistory(accepted({ state: "ok", status: "ok", response: "done", ...outcome }), rows);
    expect(described(entries)).toEqual([
      "0.1 task TASK_STATE_SUBMITTED",
      "0.2 statusUpdate TASK_STATE_WORKING",
      "6.2 statusUpdate TASK_STATE_INPUT_REQUIRED (ends)",
      "6.3 statusUpdate TASK_STATE_WORKING",
      "17.1 artifact",
      "17.2 statusUpdate TASK_STATE_COMPLETED (ends)",
    ]);
    const held = entries[2]?.response.payload;
    expect(held?.$case === "statusUpdate" && held.value.metadata).toEqual({ approvalIds: ["apv_1"], eventId: EVENT });
  });

  it("while the event waits for its approval, ends at input-required; a working event has no end yet", () => {
    const rows = [row(3, "turn.started"), row(6, "turn.completed", { finishReason: "awaiting_approval" })];
    const waiting = accepted({
      state: "awaiting_approval",
      status: "awaiting_approval",
      response: "",
      ...outcome,
      approvalIds: ["apv_1"],
    });
    expect(described(taskHistory(waiting, rows)).at(-1)).toBe("6.2 statusUpdate TASK_STATE_INPUT_REQUIRED (ends)");
    expect(described(taskHistory(accepted({ eventId: EVENT, state: "running" }), [row(3, "turn.started")]))).toEqual([
      "0.1 task TASK_STATE_SUBMITTED",
      "0.2 statusUpdate TASK_STATE_WORKING",
    ]);
  });

  it("places the SDK's live messages and the task snapshot at the position of the state they show", () => {
    const done = accepted({ state: "ok", status: "ok", response: "done", ...outcome });
    const entries = taskHistory(done, [row(3, "turn.started"), row(8, "turn.completed", { finishReason: "stop" })]);
    const task = taskOfEvent(done);
    expect(positionOf({ payload: { $case: "task", value: task } }, entries)).toEqual({ cursor: 8, offset: 2 });
    expect(task.artifacts[0]?.name).toBe("response");
    expect(task.history[0]?.messageId).toBe("m1");
    const working = entries[1]?.response as Parameters<typeof positionOf>[0];
    expect(positionOf(working, entries)).toEqual({ cursor: 0, offset: 2 });
  });
});
