/**
 * The A2A surface's server-sent events, for both bindings (JSON-RPC and HTTP+JSON: `frame` wraps each
 * StreamResponse as the binding sends it). Every message has the id `<task id>:<cursor>.<n>`, its task's stored
 * position (a2a-task-history.ts), and a client that lost a stream (message:stream, a follow-up, a subscription)
 * asks again with `Last-Event-ID`: the messages past it come from the store, then each new one to the first that
 * ends the stream, the request itself not handled again, across an orchestrator restart too. A subscription to a
 * task this orchestrator does not run (it was started before a restart) is served the same way, from its current
 * state; the SDK serves the others.
 */
import { StreamResponse, type Task } from "@a2a-js/sdk";
import type { Context } from "hono";
import type { ApiBackend } from "../api-backend.ts";
import type { ApiEnv } from "../api-env.ts";
import { sseResponse, type SseWriter } from "../sse-stream.ts";
import { formatPosition, keyedPosition, type StreamPosition } from "../stream-position.ts";
import { ENDED_STATES } from "./a2a-task-of-event.ts";
import { positionOf } from "./a2a-task-history.ts";
import { streamStoredTask, taskEntries, taskEvent } from "./a2a-task-stream.ts";

/** A StreamResponse's JSON as the binding sends it. */
export type Frame = (result: unknown) => unknown;

/** The task a StreamResponse's JSON is about. */
function taskIdOf(result: unknown): string | undefined {
  const value = result as {
    task?: { id?: string };
    statusUpdate?: { taskId?: string };
    artifactUpdate?: { taskId?: string };
  };
  return value.task?.id ?? value.statusUpdate?.taskId ?? value.artifactUpdate?.taskId;
}

export function a2aSse(options: {
  backend: ApiBackend;
  running: (taskId: string) => boolean;
  loadTask: (taskId: string, c: Context<ApiEnv>) => Promise<Task | undefined>;
  heartbeatMs?: number;
}) {
  const { backend } = options;
  const heartbeat = options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs };
  const send = (writer: SseWriter, taskId: string, position: StreamPosition, data: unknown, event?: string) =>
    writer.send({ id: `${taskId}:${formatPosition(position)}`, data, ...(event === undefined ? {} : { event }) });

  return {
    /**
     * A stream asked again with `Last-Event-ID`: the messages past it. A string when the id names no task (the
     * binding answers it as its TaskNotFoundError).
     */
    async resume(c: Context<ApiEnv>, lastEventId: string, frame: Frame): Promise<Response | string> {
      const id = keyedPosition(lastEventId);
      const accepted = id === undefined ? undefined : await taskEvent(backend, id.key).catch(() => undefined);
      if (id === undefined || accepted === undefined)
        return `no A2A task to resume after Last-Event-ID ${JSON.stringify(lastEventId.slice(0, 100))} (an id is <task id>:<cursor>.<n>)`;
      return sseResponse({
        c,
        ...heartbeat,
        run: async (writer) => {
          await streamStoredTask({
            backend,
            taskId: id.key,
            after: id.position,
            closed: writer.closed,
            send: (entry) => send(writer, id.key, entry.position, frame(StreamResponse.toJSON(entry.response))),
          });
        },
      });
    },

    /** A subscription to a task this orchestrator does not run and that has not ended; undefined: the SDK's. */
    async subscribe(c: Context<ApiEnv>, taskId: string, frame: Frame): Promise<Response | undefined> {
      if (options.running(taskId)) return undefined;
      const task = await options.loadTask(taskId, c).catch(() => undefined);
      if (task === undefined || ENDED_STATES.has(task.status?.state ?? 0)) return undefined;
      const found = await taskEntries(backend, taskId).catch(() => undefined);
      const snapshot = { payload: { $case: "task" as const, value: task } };
      const at = found === undefined ? undefined : positionOf(snapshot, found.entries);
      if (at === undefined) return undefined;
      return sseResponse({
        c,
        ...heartbeat,
        run: async (writer) => {
          send(writer, taskId, at, frame(StreamResponse.toJSON(snapshot)));
          await streamStoredTask({
            backend,
            taskId,
            after: at,
            closed: writer.closed,
            send: (entry) => send(writer, taskId, entry.position, frame(StreamResponse.toJSON(entry.response))),
          });
        },
      });
    },

    /**
     * The SDK's live stream (its first message read already): each message at its task's stored position.
     * `result` takes a message of the iterator apart (its StreamResponse JSON, or the error to end with).
     */
    live(
      c: Context<ApiEnv>,
      first: IteratorResult<unknown>,
      iterator: AsyncIterator<unknown>,
      result: (value: unknown) => { result: unknown } | { error: unknown; event?: string },
      frame: Frame,
      failure: (error: unknown) => unknown,
    ): Response {
      return sseResponse({
        c,
        ...heartbeat,
        run: async (writer) => {
          let last: StreamPosition = { cursor: 0, offset: 0 };
          let taskId = "";
          try {
            for (let next = first; !next.done; next = await iterator.next()) {
              const part = result(next.value);
              if ("error" in part) {
                writer.send({ data: part.error, ...(part.event === undefined ? {} : { event: part.event }) });
                return;
              }
              taskId = taskIdOf(part.result) ?? taskId;
              const found = await taskEntries(backend, taskId).catch(() => undefined);
              const response = StreamResponse.fromJSON(part.result as never);
              const at = found === undefined ? undefined : positionOf(response, found.entries);
              last = at ?? { cursor: last.cursor, offset: last.offset + 1 };
              send(writer, taskId, last, frame(part.result));
            }
          } catch (error) {
            writer.send({ event: "error", data: failure(error) });
          }
        },
      });
    },
  };
}
