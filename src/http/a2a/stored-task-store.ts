/**
 * The A2A task table: the SDK's tasks in memory (bounded-task-store.ts), over the store that outlives them. A task
 * is an accepted event (`a2a_<task id>`, a2a-task-of-event.ts): the first read after a start loads the newest tasks
 * from the store, and a task the executor is not running now is read again from its event whenever its table copy
 * has not ended, so `tasks/{id}`, the listing and a subscription see its state after an orchestrator restart and
 * after a decision made elsewhere (`POST /v1/approvals/:id`).
 */
import type { Task } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import type { ApiBackend } from "../api-backend.ts";
import { A2A_EVENT_PREFIX, ENDED_STATES, taskOfEvent } from "./a2a-task-of-event.ts";
import { taskEvent } from "./a2a-task-stream.ts";
import { BoundedTaskStore } from "./bounded-task-store.ts";

export class StoredTaskStore implements TaskStore {
  private readonly table: BoundedTaskStore;
  private loaded: Promise<void> | undefined;

  constructor(
    private readonly options: {
      backend: ApiBackend;
      /** Whether the executor runs the task now (its copy is then the newest). */
      running: (taskId: string) => boolean;
      maxTasks?: number;
    },
  ) {
    this.table = new BoundedTaskStore(options.maxTasks);
  }

  save(task: Task, context: ServerCallContext): Promise<void> {
    return this.table.save(task, context);
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    await this.loadStored(context);
    const kept = await this.table.load(taskId, context);
    if (kept !== undefined && (ENDED_STATES.has(kept.status?.state ?? 0) || this.options.running(taskId))) return kept;
    const accepted = await taskEvent(this.options.backend, taskId).catch(() => undefined);
    if (accepted === undefined) return kept;
    const stored = taskOfEvent(accepted);
    if (kept !== undefined && kept.status?.state === stored.status?.state) return kept;
    // The table's copy keeps its history; the store's state and artifacts are newer.
    const task = kept === undefined ? stored : { ...kept, status: stored.status, artifacts: stored.artifacts };
    await this.table.save(task, context);
    return task;
  }

  async list(...args: Parameters<TaskStore["list"]>): ReturnType<TaskStore["list"]> {
    const context = args[1];
    await this.loadStored(context);
    for (const taskId of this.table.unsettled()) if (!this.options.running(taskId)) await this.load(taskId, context);
    return this.table.list(...args);
  }

  /** Once per process: the newest tasks the store holds, into the table. */
  private loadStored(context: ServerCallContext): Promise<void> {
    this.loaded ??= (async () => {
      const limit = this.options.maxTasks ?? 10_000;
      const stored = await this.options.backend.orchestrator
        .acceptedEvents({ idPrefix: A2A_EVENT_PREFIX, limit })
        .catch(() => []);
      for (const accepted of stored.reverse()) {
        const task = taskOfEvent(accepted);
        if ((await this.table.load(task.id, context)) === undefined) await this.table.save(task, context);
      }
    })();
    return this.loaded;
  }
}
