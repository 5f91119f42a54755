/**
 * A2A's HTTP+JSON binding (`/v1/a2a/rest`) driven by the `@a2a-js/sdk` client's REST transport, in process over the
 * fake spawner: the card names the binding and the client follows it; `message:send` is a task completed with the
 * reply, `tasks/{id}` reads it, `tasks` lists it, `tasks/{id}:cancel` of a finished task is TaskNotCancelableError
 * (409), `message:stream` streams a task to completed, `tasks/{id}:subscribe` of an unknown task is
 * TaskNotFoundError; a REST refusal (the A2A handler's or the shared checks') is A2A's error shape with its HTTP status.
 */
import { describe, expect, it } from "bun:test";
import { type Message, Role, TaskState } from "@a2a-js/sdk";
import { ClientFactory, DefaultAgentCardResolver, RestTransportFactory } from "@a2a-js/sdk/client";
import { TaskNotCancelableError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { sseMessages } from "../../../src/client/sse-messages.ts";
import { apiFixture, bodyOf } from "../api-fixture.ts";

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

async function replyWhenAsked(
  spawner: ReturnType<typeof apiFixture>["spawner"],
  instanceKey: string,
  response: string,
) {
  while (spawner.of("a", instanceKey).length === 0 || spawner.latest("a", instanceKey).events().length === 0)
    await Bun.sleep(2);
  const child = spawner.latest("a", instanceKey);
  child.reply({ event: child.lastEvent(), response });
}

describe("A2A over HTTP+JSON", () => {
  it("sends, reads, lists, cancels, streams and subscribes through the SDK's REST transport", async () => {
    const { handle, spawner } = apiFixture();
    const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) =>
      handle(new Request(input as string, init))) as typeof fetch;
    // Only the REST transport: the client must follow the card's HTTP+JSON interface.
    const factory = new ClientFactory({
      transports: [new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    });
    const client = await factory.createFromUrl("http://127.0.0.1");

    const sending = client.sendMessage({ message: message("first", "ctx-rest") } as never);
    await replyWhenAsked(spawner, "ctx-rest", "rest reply");
    const sent = await sending;
    if (!("status" in sent)) throw new Error("expected a task");
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const read = await client.getTask({ id: sent.id } as never);
    expect(read.id).toBe(sent.id);
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const listed = await client.listTasks({ contextId: "ctx-rest", pageSize: 10 } as never);
    expect(listed.tasks.map((task) => task.id)).toContain(sent.id);
    expect(await client.cancelTask({ id: sent.id } as never).catch((error: unknown) => error)).toBeInstanceOf(
      TaskNotCancelableError,
    );

    const states: string[] = [];
    const streaming = (async () => {
      for await (const event of client.sendMessageStream({ message: message("second", "ctx-rest-2") } as never)) {
        const payload = event.payload;
        if (payload?.$case === "statusUpdate") states.push(`status ${TaskState[payload.value.status?.state ?? 0]}`);
        else if (payload) states.push(payload.$case);
      }
    })();
    await replyWhenAsked(spawner, "ctx-rest-2", "streamed");
    await streaming;
    expect(states).toEqual(["task", "status TASK_STATE_WORKING", "artifactUpdate", "status TASK_STATE_COMPLETED"]);

    const missing = await (async () => {
      for await (const _ of client.resubscribeTask({ id: "no-such-task" } as never));
    })().catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(TaskNotFoundError);
  });

  it("answers a task it does not know in A2A's REST error shape with 404", async () => {
    const { request } = apiFixture();
    const response = await request("GET", "/v1/a2a/rest/tasks/nope", undefined, { "A2A-Version": "1.0" });
    expect(response.status).toBe(404);
    const body = await bodyOf(response);
    expect(body.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
    expect(body.error.details[0].reason).toBe("TASK_NOT_FOUND");
  });

  it("resumes a message:stream with Last-Event-ID from the store, sending nothing again", async () => {
    const { request, spawner } = apiFixture();
    const body = { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }], contextId: "ctx-rr" } };
    const first = await request("POST", "/v1/a2a/rest/message:stream", body, { "A2A-Version": "1.0" });
    let firstId: string | undefined;
    for await (const message of sseMessages(first.body!)) {
      firstId = message.id;
      break;
    }
    // `<task id>:<cursor>.<n>`: the task, submitted, is at 0.1.
    expect(firstId).toMatch(/^[0-9a-f-]+:0\.1$/);
    await replyWhenAsked(spawner, "ctx-rr", "resumed");
    const resumed = await request("POST", "/v1/a2a/rest/message:stream", body, {
      "A2A-Version": "1.0",
      "last-event-id": firstId!,
    });
    const text = await resumed.text();
    const ids = [...text.matchAll(/^id: .+:(\d+\.\d+)$/gm)].map((match) => match[1]);
    expect(ids[0]).toBe("0.2");
    expect(text).toContain("TASK_STATE_COMPLETED");
    expect(spawner.latest("a", "ctx-rr").events().length).toBe(1);
  });

  it("answers what the shared checks refuse in the same shape: a missing token is 401 UNAUTHENTICATED", async () => {
    const { request } = apiFixture({ token: "s3cret" });
    const response = await request("POST", "/v1/a2a/rest/message:send", { message: {} });
    expect(response.status).toBe(401);
    const body = await bodyOf(response);
    expect(body.error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
    expect(body.error.details[0].reason).toBe("E_API_UNAUTHORIZED");
  });
});
