/**
 * The A2A surface driven by the official `@a2a-js/sdk` client (following the agent card to the JSON-RPC binding)
 * against a real `goondan run` on the loopback LLM: the card's skill is the entry agent; a sent message is a task
 * that completes with the reply; it is read back, listed page by page, streamed, subscribed to while it runs; a
 * finished task cannot be canceled and push notifications are refused, each with A2A's typed error; a task held for
 * an approval is `input-required`, and a follow-up message approves it (the side effect happens once), while
 * canceling another denies its approval.
 */
import { describe, expect, it } from "bun:test";
import { type Message, Role, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { PushNotificationNotSupportedError, TaskNotCancelableError } from "@a2a-js/sdk/errors";
import { lastRole, roleOf } from "../../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { lastUserText, type LoopbackReply, type LoopbackRequest } from "../../helpers/loopback-llm.ts";
import { approvalsWorld, pendingApprovals } from "../../orchestrator/approvals-fixture.ts";
import { serveRealSwarm } from "../run-fixture.ts";

const defer = useCleanups();

function delegating(request: LoopbackRequest): LoopbackReply {
  if (roleOf(request) === "worker") return { text: "worker done" };
  if (lastRole(request) === "user")
    return { toolCalls: [{ name: "agents__request", args: { target: "worker", input: "help" } }] };
  return { text: `answer to ${lastUserText(request)}`, chunkDelayMs: 150, textPieces: 4 };
}

function message(options: { text?: string; data?: unknown; taskId?: string; contextId?: string }): Message {
  const part =
    options.data === undefined
      ? { content: { $case: "text" as const, value: options.text ?? "" }, mediaType: "text/plain" }
      : { content: { $case: "data" as const, value: options.data }, mediaType: "application/json" };
  return {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ ...part, filename: "", metadata: {} }],
    contextId: options.contextId ?? "",
    taskId: options.taskId ?? "",
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

const textOf = (parts: readonly { content?: { $case: string; value?: unknown } }[] | undefined) =>
  (parts ?? []).map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");

describe("A2A with the @a2a-js/sdk client, real processes", () => {
  it("sends, reads, lists, streams and subscribes to tasks; refuses cancel and push notifications with typed errors", async () => {
    const run = await serveRealSwarm({ defer, streaming: true, llm: { respond: delegating } });
    const client = await new ClientFactory().createFromUrl(run.base);
    const card = await client.getAgentCard();
    expect(card.skills.map((skill) => skill.id)).toEqual(["coordinator"]);
    expect(card.supportedInterfaces[0]?.url).toBe(`${run.base}/v1/a2a`);

    const sent = await client.sendMessage({ message: message({ text: "first", contextId: "ctx-a2a" }) } as never);
    if (!("status" in sent)) throw new Error("expected a task");
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(sent.artifacts[0]?.parts)).toBe("answer to first");
    expect(sent.metadata).toMatchObject({ agent: "coordinator", instanceKey: "ctx-a2a", eventId: expect.any(String) });
    const read = await client.getTask({ id: sent.id } as never);
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const events: string[] = [];
    for await (const event of client.sendMessageStream({ message: message({ text: "second" }) } as never)) {
      const payload = event.payload;
      if (payload?.$case === "statusUpdate") events.push(`status ${TaskState[payload.value.status?.state ?? 0]}`);
      else if (payload) events.push(payload.$case);
    }
    expect(events).toEqual(["task", "status TASK_STATE_WORKING", "artifactUpdate", "status TASK_STATE_COMPLETED"]);

    const list = (pageToken: string) =>
      client.listTasks({
        tenant: "",
        contextId: "",
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 1,
        pageToken,
        statusTimestampAfter: undefined,
      });
    const pageOne = await list("");
    expect(pageOne.tasks).toHaveLength(1);
    expect(pageOne.nextPageToken).not.toBe("");
    const pageTwo = await list(pageOne.nextPageToken);
    expect(pageTwo.tasks).toHaveLength(1);
    expect(pageTwo.tasks[0]?.id).not.toBe(pageOne.tasks[0]?.id);

    const early = await client.sendMessage({
      message: message({ text: "third" }),
      configuration: { returnImmediately: true, acceptedOutputModes: [] },
    } as never);
    if (!("status" in early)) throw new Error("expected a task");
    const followed: string[] = [];
    for await (const event of client.resubscribeTask({ id: early.id } as never))
      if (event.payload?.$case === "statusUpdate")
        followed.push(String(TaskState[event.payload.value.status?.state ?? 0]));
    expect(followed.at(-1)).toBe("TASK_STATE_COMPLETED");

    expect(await client.cancelTask({ id: sent.id } as never).catch((error: unknown) => error)).toBeInstanceOf(
      TaskNotCancelableError,
    );
    // The client reads the card and refuses at once; the server, asked anyway, answers the same typed error.
    expect(() =>
      client.createTaskPushNotificationConfig({ taskId: sent.id, url: "http://127.0.0.1:9/hook" } as never),
    ).toThrow(PushNotificationNotSupportedError);
    const raw = await fetch(`${run.base}/v1/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "CreateTaskPushNotificationConfig",
        params: { taskId: sent.id, url: "http://127.0.0.1:9/hook" },
      }),
    });
    const answer = (await raw.json()) as { id: number; error: { data: { reason: string }[] } };
    expect(answer.id).toBe(7);
    expect(answer.error.data[0]?.reason).toBe("PUSH_NOTIFICATION_NOT_SUPPORTED");
  });

  it("holds a task input-required for an approval, approves it by a follow-up message, and denies it by cancel", async () => {
    const world = await approvalsWorld(defer);
    const { base } = await world.start();
    const client = await new ClientFactory().createFromUrl(base);

    const held = await client.sendMessage({ message: message({ text: "job-9", contextId: "ctx-approve" }) } as never);
    if (!("status" in held)) throw new Error("expected a task");
    expect(held.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [approval] = await pendingApprovals(base);
    expect(textOf(held.status?.message?.parts)).toContain(approval?.id as string);
    expect(world.effects()).toEqual([]);

    const approved = await client.sendMessage({
      message: message({ data: { decision: "approve" }, taskId: held.id, contextId: held.contextId }),
    } as never);
    if (!("status" in approved)) throw new Error("expected a task");
    expect(approved.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(approved.status?.message?.parts)).toContain("tool said:");
    expect(world.effects()).toEqual(["job-9"]);

    const other = await client.sendMessage({ message: message({ text: "job-10", contextId: "ctx-cancel" }) } as never);
    if (!("status" in other)) throw new Error("expected a task");
    expect(other.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const canceled = await client.cancelTask({ id: other.id } as never);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await pendingApprovals(base)).toEqual([]);
    expect(world.effects()).toEqual(["job-9"]);
  });
});
