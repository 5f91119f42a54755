/**
 * The A2A task table's bound: past twice its size it keeps the newest tasks and every task that has not ended, and
 * still lists and loads through the SDK's store.
 */
import { describe, expect, it } from "bun:test";
import { type Task, TaskState } from "@a2a-js/sdk";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { BoundedTaskStore } from "../../../src/http/a2a/bounded-task-store.ts";

const task = (id: string, state: TaskState): Task => ({
  id,
  contextId: "ctx",
  status: { state, message: undefined, timestamp: new Date().toISOString() },
  artifacts: [],
  history: [],
  metadata: {},
});

describe("BoundedTaskStore", () => {
  it("keeps the newest tasks and those still waiting once it holds twice its bound", async () => {
    const store = new BoundedTaskStore(5);
    const context = new ServerCallContext();
    await store.save(task("waiting", TaskState.TASK_STATE_INPUT_REQUIRED), context);
    for (let index = 0; index < 9; index += 1)
      await store.save(task(`done-${index}`, TaskState.TASK_STATE_COMPLETED), context);
    expect(store.size).toBe(10);
    await store.save(task("done-9", TaskState.TASK_STATE_COMPLETED), context);
    expect(store.size).toBe(6);
    expect(await store.load("done-0", context)).toBeUndefined();
    expect((await store.load("waiting", context))?.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect((await store.load("done-9", context))?.id).toBe("done-9");
    const listed = await store.list(
      {
        tenant: "",
        contextId: "",
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 50,
        pageToken: "",
        statusTimestampAfter: undefined,
      },
      context,
    );
    expect(listed.tasks.map((entry) => entry.id).sort()).toEqual([
      "done-5",
      "done-6",
      "done-7",
      "done-8",
      "done-9",
      "waiting",
    ]);
  });
});
