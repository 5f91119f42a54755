/**
 * The A2A task table, kept in memory by the SDK's own InMemoryTaskStore (its listing, paging and scoping), with a
 * bound: once it holds twice `maxTasks`, it is rebuilt with the newest `maxTasks` tasks and every task that has not
 * ended (an `input-required` task waits for a person however old it is), so a long-running daemon does not grow
 * without end. An evicted task's event is still answered by `GET /v1/events/:eventId`.
 */
import { type Task, TaskState } from "@a2a-js/sdk";
import { InMemoryTaskStore, type ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";

const ENDED = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

export class BoundedTaskStore implements TaskStore {
  private store = new InMemoryTaskStore();
  /** Each task's latest copy and the context it was saved under, oldest first. */
  private readonly saved = new Map<string, { task: Task; context: ServerCallContext }>();

  /** `maxTasks`: default 10 000. */
  constructor(private readonly maxTasks = 10_000) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    this.saved.delete(task.id);
    this.saved.set(task.id, { task, context });
    await this.store.save(task, context);
    if (this.saved.size > 2 * this.maxTasks) await this.trim();
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.store.load(taskId, context);
  }

  list(...args: Parameters<TaskStore["list"]>): ReturnType<TaskStore["list"]> {
    return this.store.list(...args);
  }

  /** The ids of the tasks that have not ended. */
  unsettled(): string[] {
    return [...this.saved.values()]
      .filter(({ task }) => !ENDED.has(task.status?.state ?? 0))
      .map(({ task }) => task.id);
  }

  /** How many tasks the table holds. */
  get size(): number {
    return this.saved.size;
  }

  private async trim(): Promise<void> {
    const entries = [...this.saved.entries()];
    const newest = new Set(entries.slice(-this.maxTasks).map(([id]) => id));
    const kept = entries.filter(([id, { task }]) => newest.has(id) || !ENDED.has(task.status?.state ?? 0));
    this.store = new InMemoryTaskStore();
    this.saved.clear();
    for (const [id, entry] of kept) {
      this.saved.set(id, entry);
      await this.store.save(entry.task, entry.context);
    }
  }
}
