/**
 * A2A across an orchestrator restart, with the official `@a2a-js/sdk` client (following the card) and real
 * `goondan run` processes on the loopback model: a task is an accepted event, so after the orchestrator is stopped
 * (SIGTERM, a drain; SIGKILL, a crash) and started again on the same state root and port, a SendStreamingMessage
 * stream and a SubscribeToTask stream cut before the stop are resumed with `Last-Event-ID` (the SDK sends what its
 * `fetch` is given) and get exactly the messages they lacked: each state once, no gap, no double; a task started before
 * the restart is subscribed to afterwards and followed to its end; `GetTask` and `ListTasks` read them back.
 */
import { describe, expect, it } from "bun:test";
import { type Message, Role, type StreamResponse, TaskState } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { lastRole, roleOf } from "../../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { until } from "../../helpers/goondan-process.ts";
import { lastUserText, type LoopbackReply, type LoopbackRequest } from "../../helpers/loopback-llm.ts";
import { startTcpProxy } from "../../helpers/tcp-proxy.ts";
import { realSwarm, startSwarmRun } from "../run-fixture.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const defer = useCleanups();

function script(marker: string) {
  return (request: LoopbackRequest): LoopbackReply => {
    if (roleOf(request) === "worker")
      return lastRole(request) === "tool"
        ? { text: "worker done" }
        : {
            toolCalls: [
              { name: "slow__sleep", args: { ms: lastUserText(request).includes("beta") ? 4000 : 2000, marker } },
            ],
          };
    if (lastRole(request) === "user")
      return { toolCalls: [{ name: "agents__request", args: { target: "worker", input: lastUserText(request) } }] };
    return { text: `answer to ${lastUserText(request)}` };
  };
}

function message(text: string, contextId: string): Message {
  return {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, mediaType: "text/plain", filename: "", metadata: {} }],
    contextId,
    taskId: "",
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * A `fetch` for the SDK that notes the SSE ids of each stream it reads, and sends `last-event-id` on the next request
 * whose body holds a text it was told.
 */
function recordingFetch() {
  const state = { streams: [] as string[][], resume: [] as Array<{ match: string; id: string }> };
  const impl = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === "string" ? init.body : "";
    const resume = state.resume.findIndex((entry) => body.includes(entry.match));
    if (resume >= 0) headers.set("last-event-id", state.resume.splice(resume, 1)[0]!.id);
    const response = await fetch(input, { ...init, headers });
    if (!response.headers.get("content-type")?.includes("text/event-stream") || response.body === null) return response;
    const ids: string[] = [];
    state.streams.push(ids);
    let buffer = "";
    const decoder = new TextDecoder();
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          if (line.startsWith("id:")) ids.push(line.slice(3).trim());
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(tap), { status: response.status, headers: response.headers });
  }) as typeof fetch;
  return { impl, state };
}

/** A message of a stream, short: `task WORKING`, `status COMPLETED`, `artifact <text>`. */
function describeResponse(response: StreamResponse): string {
  const payload = response.payload;
  if (payload?.$case === "task") return `task ${TaskState[payload.value.status?.state ?? 0]}`;
  if (payload?.$case === "statusUpdate") return `status ${TaskState[payload.value.status?.state ?? 0]}`;
  if (payload?.$case === "artifactUpdate")
    return `artifact ${payload.value.artifact?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("")}`;
  return String(payload?.$case);
}

/** Reads `count` messages of a stream, then leaves it open (the proxy cuts it). */
async function take(stream: AsyncGenerator<StreamResponse>, count: number): Promise<string[]> {
  const taken: string[] = [];
  for (let index = 0; index < count; index++) {
    const next = await stream.next();
    if (next.done) break;
    taken.push(describeResponse(next.value));
  }
  return taken;
}

async function all(stream: AsyncGenerator<StreamResponse>): Promise<string[]> {
  const taken: string[] = [];
  for await (const response of stream) taken.push(describeResponse(response));
  return taken;
}

describe("A2A across an orchestrator restart, @a2a-js/sdk client, real processes", () => {
  for (const signal of ["SIGTERM", "SIGKILL"] as const)
    it(`resumes a stream and a subscription after ${signal}, subscribes to a task started before, gets and lists them`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "goondan-a2a-restart-"));
      defer(() => rmSync(dir, { recursive: true, force: true }));
      const swarm = await realSwarm({ defer, llm: { respond: script(join(dir, "sleep")) } });
      const start = (port: number) => startSwarmRun(swarm, { defer, port });
      const first = await start(0);
      const proxy = await startTcpProxy({ targetHost: "127.0.0.1", targetPort: first.port });
      defer(() => proxy.close());
      const { impl, state } = recordingFetch();
      const client = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl: impl })],
          cardResolver: new DefaultAgentCardResolver({ fetchImpl: impl }),
        }),
      ).createFromUrl(`http://${proxy.address}`);

      // A stream, read to `working`; a subscription to its task, read to its first message; another task, not read.
      const params = { message: message("alpha", "ctx-restart") };
      const streamed = client.sendMessageStream(params as never);
      const before = await take(streamed, 2);
      expect(before).toEqual(["task TASK_STATE_SUBMITTED", "status TASK_STATE_WORKING"]);
      const streamIds = state.streams[0] as string[];
      const taskId = (streamIds[0] as string).split(":")[0] as string;
      const subscribed = client.resubscribeTask({ id: taskId } as never);
      const subscribedBefore = await take(subscribed, 1);
      expect(subscribedBefore).toEqual(["task TASK_STATE_WORKING"]);
      const subscriptionIds = state.streams[1] as string[];
      const other = await client.sendMessage({
        message: message("beta", "ctx-restart-2"),
        configuration: { returnImmediately: true, acceptedOutputModes: [] },
      } as never);
      if (!("status" in other)) throw new Error("expected a task");

      // Cut both streams, stop the orchestrator, start it again on the same state root and port.
      await proxy.stop();
      first.proc.kill(signal);
      await first.proc.exited;
      await start(first.port);
      await proxy.start();

      // The task started before the restart, subscribed to after it (it runs again from its start).
      const following = all(client.resubscribeTask({ id: other.id } as never));
      state.resume.push({ match: params.message.messageId, id: streamIds[1] as string });
      const streamRest = await all(client.sendMessageStream(params as never));
      state.resume.push({ match: taskId, id: subscriptionIds[0] as string });
      const subscriptionRest = await all(client.resubscribeTask({ id: taskId } as never));
      const reply = "artifact answer to alpha";
      // No gap, no double: the resumed stream is exactly the rest of a stream of the task.
      expect([...before, ...streamRest]).toEqual([
        "task TASK_STATE_SUBMITTED",
        "status TASK_STATE_WORKING",
        reply,
        "status TASK_STATE_COMPLETED",
      ]);
      expect([...subscribedBefore, ...subscriptionRest]).toEqual([
        "task TASK_STATE_WORKING",
        reply,
        "status TASK_STATE_COMPLETED",
      ]);
      // Their ids go on from where they stopped.
      const resumedIds = (state.streams.at(-2) as string[]).map((id) => id.split(":")[1]);
      expect(resumedIds).toHaveLength(2);
      expect(resumedIds[0]).not.toBe((streamIds[1] as string).split(":")[1]);

      // The task subscribed to after the restart, followed to its end.
      const followed = await following;
      expect(followed.at(-1)).toBe("status TASK_STATE_COMPLETED");
      expect(followed).toContain("artifact answer to beta");

      const read = await client.getTask({ id: taskId } as never);
      expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(read.metadata).toMatchObject({ instanceKey: "ctx-restart", eventId: `a2a_${taskId}` });
      const listed = await until(async () => {
        const page = await client.listTasks({
          tenant: "",
          contextId: "",
          status: TaskState.TASK_STATE_COMPLETED,
          pageSize: 10,
          pageToken: "",
          statusTimestampAfter: undefined,
        });
        return page.tasks.length === 2 ? page : undefined;
      });
      expect(listed.tasks.map((task) => task.id).sort()).toEqual([taskId, other.id].sort());
    }, 150_000);
});
