/**
 * The OpenAI-compatible surface driven by the `openai` npm client against a real `goondan run` (orchestrator, Bun
 * agent children) on the loopback LLM: a non-streamed answer with the usage of every turn of the swarm, a streamed
 * one whose chunks carry the reply text only (the delegation stays inside), a conversation kept across calls by the
 * header and by `user`, a fresh instance given the caller's messages as its history, an unknown model refused as
 * the client's NotFoundError, and a held approval answered with `awaiting_approval` and its id, then decided.
 */
import { describe, expect, it } from "bun:test";
import OpenAI, { NotFoundError } from "openai";
import { lastRole, roleOf } from "../../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { lastUserText, type LoopbackReply, type LoopbackRequest } from "../../helpers/loopback-llm.ts";
import { approvalsWorld, decide } from "../../orchestrator/approvals-fixture.ts";
import { serveRealSwarm } from "../run-fixture.ts";

const defer = useCleanups();
const ANSWER = "The swarm answers, in several pieces:";

/** The coordinator delegates every question to the worker, then answers with ANSWER and the question, slowly. */
function delegating(request: LoopbackRequest): LoopbackReply {
  if (roleOf(request) === "worker") return { text: "worker done" };
  if (lastRole(request) === "user")
    return { toolCalls: [{ name: "agents__request", args: { target: "worker", input: "help" } }] };
  return { text: `${ANSWER} ${lastUserText(request)}`, chunkDelayMs: 40, textPieces: 5 };
}

const clientOf = (base: string) => new OpenAI({ baseURL: `${base}/v1`, apiKey: "unused", maxRetries: 0 });

/** The user messages of the coordinator's last model request that contains `text`. */
function coordinatorUserMessages(requests: LoopbackRequest[], text: string): string[] {
  const request = requests
    .filter((candidate) => roleOf(candidate) === "coordinator")
    .findLast((candidate) => JSON.stringify(candidate.body.messages).includes(text));
  return (request?.body.messages ?? [])
    .filter((message) => message.role === "user")
    .map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)));
}

describe("POST /v1/chat/completions with the openai client, real processes", () => {
  it("answers with the reply and the usage of every turn, and streams only the reply text", async () => {
    const run = await serveRealSwarm({ defer, streaming: true, llm: { respond: delegating } });
    const client = clientOf(run.base);
    expect((await client.models.list()).data.map((model) => model.id)).toEqual([
      "duo",
      "duo/coordinator",
      "duo/worker",
    ]);

    const completion = await client.chat.completions.create({
      model: "duo",
      messages: [{ role: "user", content: "first?" }],
    });
    expect(completion.choices[0]?.message.content).toBe(`${ANSWER} first?`);
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    // Two coordinator calls and one worker call, 10 prompt and 5 completion tokens each (the loopback's count).
    expect(completion.usage).toEqual({ prompt_tokens: 30, completion_tokens: 15, total_tokens: 45 });

    const stream = await client.chat.completions.create({
      model: "duo",
      messages: [{ role: "user", content: "second?" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const pieces: string[] = [];
    const finishes: (string | null)[] = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) pieces.push(choice.delta.content);
      if (choice?.finish_reason) finishes.push(choice.finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join("")).toBe(`${ANSWER} second?`);
    expect(finishes).toEqual(["stop"]);
    expect(usage?.total_tokens).toBe(45);
  });

  it("keeps a conversation by the header or by user, and gives a fresh instance the caller's history", async () => {
    const run = await serveRealSwarm({ defer, llm: { respond: delegating } });
    const client = clientOf(run.base);
    const ask = (content: string, extra: { user?: string; header?: string } = {}) =>
      client.chat.completions
        .create(
          { model: "duo", messages: [{ role: "user", content }], ...(extra.user ? { user: extra.user } : {}) },
          extra.header ? { headers: { "x-goondan-conversation": extra.header } } : {},
        )
        .withResponse();

    await ask("kept-one", { header: "conversation-1" });
    const second = await ask("kept-two", { header: "conversation-1" });
    expect(second.response.headers.get("x-goondan-conversation")).toBe("conversation-1");
    expect(second.data.choices[0]?.message.content).toBe(`${ANSWER} kept-two`);
    expect(coordinatorUserMessages(run.llm.requests, "kept-two")).toEqual(["kept-one", "kept-two"]);

    await ask("alice-one", { user: "alice" });
    const alice = await ask("alice-two", { user: "alice" });
    expect(alice.response.headers.get("x-goondan-conversation")).toBe("alice");
    expect(coordinatorUserMessages(run.llm.requests, "alice-two")).toEqual(["alice-one", "alice-two"]);

    const fresh = await client.chat.completions
      .create({
        model: "duo",
        messages: [
          { role: "system", content: "be brief" },
          { role: "user", content: "old question" },
          { role: "assistant", content: "old answer" },
          { role: "user", content: "new question" },
        ],
      })
      .withResponse();
    expect(fresh.response.headers.get("x-goondan-conversation")).toMatch(/^chat/);
    const [input, ...more] = coordinatorUserMessages(run.llm.requests, "new question");
    expect(more).toEqual([]);
    expect(input).toContain("[user] old question\n[assistant] old answer");
    expect(input).toEndWith("[user] new question");

    const refused = await client.chat.completions
      .create({ model: "duo/nobody", messages: [{ role: "user", content: "x" }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NotFoundError);
    expect((refused as NotFoundError).code).toBe("E_CHAT_MODEL_NOT_FOUND");
  });

  it("answers a held approval with awaiting_approval and its id, and the approval decides it", async () => {
    const world = await approvalsWorld(defer);
    const { base } = await world.start();
    const client = clientOf(base);
    const held = await client.chat.completions.create({
      model: "approvals",
      messages: [{ role: "user", content: "job-1" }],
    });
    expect(held.choices[0]?.finish_reason as string).toBe("awaiting_approval");
    const approvalIds = (held as unknown as { goondan: { approvalIds: string[] } }).goondan.approvalIds;
    expect(approvalIds).toHaveLength(1);
    expect(world.effects()).toEqual([]);

    const decided = await decide(base, approvalIds[0] as string, { decision: "approve", wait: true });
    expect(decided.body.outcome?.status).toBe("ok");
    expect(world.effects()).toEqual(["job-1"]);

    const stream = await client.chat.completions.create({
      model: "approvals",
      messages: [{ role: "user", content: "job-2" }],
      stream: true,
    });
    const finishes: string[] = [];
    for await (const chunk of stream)
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
    expect(finishes).toEqual(["awaiting_approval"]);
  });
});
