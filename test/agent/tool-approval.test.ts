/**
 * The `tool-approval` extension and the turn loop with fakes (scripted model, the SQLite store on a temp dir): a
 * matching call is held (the turn ends awaiting_approval, the tool does not run, later calls wait), and the event
 * delivered again with the decisions goes on from that call: approve runs it once, deny and timeout are structured
 * errors with the reason, and an approved call whose process died while it ran is never run again.
 */
import { describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import type { ExtensionApi } from "../../src/agent/extensions/types.ts";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { ToolApprovals } from "../../src/agent/loop/tool-approvals.ts";
import { register } from "../../src/base/extensions/tool-approval.ts";
import { matchesToolGlob } from "../../src/base/extensions/tool-approval-config.ts";
import type { ApprovalDecisionKind } from "../../src/protocol/approval.ts";
import type { JsonObject } from "../../src/shared/json.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { scriptedModel, type ScriptedReply } from "../helpers/scripted-model.ts";
import { TEST_INSTANCE, tempStateRoot as newStateRoot, testEnv, userEvent, type TestEnv } from "./support/test-env.ts";

const defer = useCleanups();
const item = (name: string) => ({ name, description: `does ${name}`, parameters: { type: "object", properties: {} } });

function guardedEnv(options: { stateRoot: string; replies: ScriptedReply[]; config?: JsonObject; runs: string[] }) {
  const model = scriptedModel(options.replies);
  const test: TestEnv = testEnv({ model: model.model, stateRoot: options.stateRoot });
  const approvals = new ToolApprovals({
    agentName: TEST_INSTANCE.agent,
    instanceKey: TEST_INSTANCE.instanceKey,
    ids: (prefix) => `${prefix}_${Math.random().toString(36).slice(2, 10)}`,
    now: () => 1_000_000,
  });
  test.env.approvals = approvals;
  const api = {
    name: "tool-approval",
    approvals,
    pipeline: {
      register: (type: never, middleware: never, opts?: { priority?: number }) =>
        test.env.pipeline.register(type, middleware, { ...opts, extension: "tool-approval" }),
    },
  } as unknown as ExtensionApi;
  register(api, options.config ?? { tools: ["files__*"], timeoutSeconds: 30 });
  for (const name of ["files__write", "files__read", "bash__exec"])
    test.registerTool(item(name), () => (options.runs.push(name), { done: name }));
  return { test, model, approvals };
}

/** What the child's turn end and the orchestrator do with a held turn: commit it with its requests, then decide them. */
async function holdAndDecide(test: TestEnv, approvals: ToolApprovals, decision: ApprovalDecisionKind, reason?: string) {
  const requested = approvals.takeRequested();
  await test.store.commit(TEST_INSTANCE, { changes: test.env.conversation.takeChanges(), approvals: { requested } });
  for (const request of requested)
    await test.store.decideApproval(TEST_INSTANCE.swarm, request.id, {
      decision,
      decidedAt: 2_000_000,
      ...(reason === undefined ? {} : { reason }),
    });
  return test.store.approvals({ swarm: TEST_INSTANCE.swarm });
}

function lastToolResults(prompt: unknown): {
  toolCallId: string;
  output: { value: { status: string; output?: unknown; error?: { code: string; message: string } } };
}[] {
  const tool = (prompt as { role: string; content: unknown }[]).filter((message) => message.role === "tool");
  return tool.flatMap((message) => message.content as never[]);
}

describe("tool-approval: holding a call", () => {
  it("ends the turn awaiting_approval at a matching call, without running it, with the request's name, arguments and deadline", async () => {
    const stateRoot = newStateRoot();
    defer(() => rmSync(stateRoot, { recursive: true, force: true }));
    const runs: string[] = [];
    const { test, model, approvals } = guardedEnv({
      stateRoot,
      runs,
      replies: [{ toolCalls: [{ id: "c1", name: "files__write", args: { path: "a.txt" } }] }],
    });
    const { result } = await runTurn({ env: test.env, event: userEvent("write it") });
    expect(result.status).toBe("awaiting_approval");
    expect(result.finishReason).toBe("awaiting_approval");
    expect(result.approvalIds?.length).toBe(1);
    expect(runs).toEqual([]);
    const [request] = approvals.takeRequested();
    expect(request).toMatchObject({
      id: result.approvalIds?.[0],
      toolName: "files__write",
      toolCallId: "c1",
      arguments: { path: "a.txt" },
      requestedAt: 1_000_000,
      expiresAt: 1_030_000,
    });
    expect(test.events.events.find((event) => event.type === "approval.requested")).toMatchObject({
      toolName: "files__write",
      data: { approvalId: request?.id },
    });
    model.assertDone();
  });

  it("runs a call no glob matches without asking", async () => {
    const stateRoot = newStateRoot();
    defer(() => rmSync(stateRoot, { recursive: true, force: true }));
    const runs: string[] = [];
    const { test } = guardedEnv({
      stateRoot,
      runs,
      replies: [{ toolCalls: [{ id: "c1", name: "bash__exec" }] }, { text: "ran" }],
    });
    const { result } = await runTurn({ env: test.env, event: userEvent("run it") });
    expect(result).toMatchObject({ status: "ok", response: "ran" });
    expect(runs).toEqual(["bash__exec"]);
  });

  it("keeps the results of the calls before the held one; the calls after it run only when the turn resumes", async () => {
    const stateRoot = newStateRoot();
    defer(() => rmSync(stateRoot, { recursive: true, force: true }));
    const runs: string[] = [];
    const calls = [
      { id: "c1", name: "bash__exec" },
      { id: "c2", name: "files__write" },
      { id: "c3", name: "bash__exec" },
    ];
    const first = guardedEnv({ stateRoot, runs, replies: [{ toolCalls: calls }] });
    const event = userEvent("three things");
    const held = await runTurn({ env: first.test.env, event });
    expect(held.result.status).toBe("awaiting_approval");
    expect(runs).toEqual(["bash__exec"]);
    const decided = await holdAndDecide(first.test, first.approvals, "approve");

    const second = guardedEnv({ stateRoot, runs, replies: [{ text: "all done" }] });
    const { result } = await runTurn({ env: second.test.env, event, turnId: held.result.turnId, approvals: decided });
    expect(result).toMatchObject({ status: "ok", response: "all done", turnId: held.result.turnId });
    expect(runs).toEqual(["bash__exec", "files__write", "bash__exec"]);
    const answers = lastToolResults(second.model.calls[0]?.prompt);
    expect(answers.map((answer) => [answer.toolCallId, answer.output.value.status])).toEqual([
      ["c1", "ok"],
      ["c2", "ok"],
      ["c3", "ok"],
    ]);
    second.model.assertDone();
  });
});

describe("tool-approval: the resumed turn", () => {
  for (const [decision, code] of [
    ["deny", "E_TOOL_DENIED"],
    ["timeout", "E_TOOL_APPROVAL_TIMEOUT"],
  ] as const) {
    it(`answers a ${decision} with ${code} and the reason, runs nothing, and the turn goes on`, async () => {
      const stateRoot = newStateRoot();
      defer(() => rmSync(stateRoot, { recursive: true, force: true }));
      const runs: string[] = [];
      const first = guardedEnv({ stateRoot, runs, replies: [{ toolCalls: [{ id: "c1", name: "files__write" }] }] });
      const event = userEvent("write it");
      await runTurn({ env: first.test.env, event });
      const decided = await holdAndDecide(first.test, first.approvals, decision, "the reason given");
      const second = guardedEnv({ stateRoot, runs, replies: [{ text: "understood" }] });
      const { result } = await runTurn({ env: second.test.env, event, approvals: decided });
      expect(result).toMatchObject({ status: "ok", response: "understood" });
      expect(runs).toEqual([]);
      const [answer] = lastToolResults(second.model.calls[0]?.prompt);
      expect(answer?.output.value.error?.code).toBe(code);
      expect(answer?.output.value.error?.message).toContain("the reason given");
      // Committed as applied before anything ran.
      expect((await second.test.store.approvals({ swarm: TEST_INSTANCE.swarm }))[0]?.applied).toBe(true);
    });
  }

  it("answers an approved call whose decision was applied before (its process died while it ran) with E_TOOL_INTERRUPTED, never running it again", async () => {
    const stateRoot = newStateRoot();
    defer(() => rmSync(stateRoot, { recursive: true, force: true }));
    const runs: string[] = [];
    const first = guardedEnv({ stateRoot, runs, replies: [{ toolCalls: [{ id: "c1", name: "files__write" }] }] });
    const event = userEvent("write it");
    await runTurn({ env: first.test.env, event });
    const decided = await holdAndDecide(first.test, first.approvals, "approve");
    const applied = decided.map((approval) => ({ ...approval, applied: true }));
    const second = guardedEnv({ stateRoot, runs, replies: [{ text: "I will check first" }] });
    const { result } = await runTurn({ env: second.test.env, event, approvals: applied, redelivery: true });
    expect(result.status).toBe("ok");
    expect(runs).toEqual([]);
    expect(lastToolResults(second.model.calls[0]?.prompt)[0]?.output.value.error?.code).toBe("E_TOOL_INTERRUPTED");
  });
});

describe("tool-approval: a decision covers one call", () => {
  it("asks again about a later call of the resumed turn whose model reuses a decided call id", async () => {
    const stateRoot = newStateRoot();
    defer(() => rmSync(stateRoot, { recursive: true, force: true }));
    const runs: string[] = [];
    const first = guardedEnv({ stateRoot, runs, replies: [{ toolCalls: [{ id: "c1", name: "files__write" }] }] });
    const event = userEvent("write twice");
    await runTurn({ env: first.test.env, event });
    const decided = await holdAndDecide(first.test, first.approvals, "approve");
    const second = guardedEnv({ stateRoot, runs, replies: [{ toolCalls: [{ id: "c1", name: "files__write" }] }] });
    const { result } = await runTurn({ env: second.test.env, event, approvals: decided });
    expect(runs).toEqual(["files__write"]);
    expect(result.status).toBe("awaiting_approval");
    expect(second.approvals.takeRequested().map((request) => request.toolCallId)).toEqual(["c1"]);
  });
});

describe("the store's approvals", () => {
  it("applies a decision once and makes the event unanswered again only when its last approval is decided", async () => {
    const stateRoot = newStateRoot();
    defer(() => rmSync(stateRoot, { recursive: true, force: true }));
    const { test } = guardedEnv({ stateRoot, runs: [], replies: [] });
    const event = userEvent("write it");
    await test.store.accept(TEST_INSTANCE.swarm, event, 1);
    const request = (id: string, toolCallId: string) => ({
      id,
      agent: "assistant",
      instanceKey: "main",
      eventId: event.id,
      turnId: "turn_1",
      traceId: event.traceId,
      toolCallId,
      toolName: "files__write",
      arguments: {},
      requestedAt: 1,
    });
    const outcome = {
      status: "awaiting_approval" as const,
      agent: "assistant",
      instanceKey: "main",
      eventId: event.id,
      turnId: "turn_1",
      response: "",
      finishReason: "awaiting_approval",
      approvalIds: ["appr_a", "appr_b"],
    };
    await test.store.commit(
      TEST_INSTANCE,
      { approvals: { requested: [request("appr_a", "c1"), request("appr_b", "c2")] } },
      outcome,
    );
    expect((await test.store.unanswered(TEST_INSTANCE.swarm)).map((record) => record.event.id)).not.toContain(event.id);
    expect(
      (await test.store.approvals({ swarm: TEST_INSTANCE.swarm, pending: true })).map((approval) => approval.id),
    ).toEqual(["appr_a", "appr_b"]);

    const one = await test.store.decideApproval(TEST_INSTANCE.swarm, "appr_a", { decision: "approve", decidedAt: 5 });
    expect(one.type).toBe("decided");
    expect(one.type === "decided" ? one.reopened : "x").toBeUndefined();
    expect(
      (await test.store.decideApproval(TEST_INSTANCE.swarm, "appr_a", { decision: "deny", decidedAt: 6 })).type,
    ).toBe("already");
    const last = await test.store.decideApproval(TEST_INSTANCE.swarm, "appr_b", { decision: "deny", decidedAt: 7 });
    expect(
      last.type === "decided" ? last.reopened?.approvals?.map((approval) => approval.decision?.decision) : [],
    ).toEqual(["approve", "deny"]);
    expect((await test.store.unanswered(TEST_INSTANCE.swarm)).map((record) => record.event.id)).toContain(event.id);
    expect(await test.store.approvals({ swarm: TEST_INSTANCE.swarm, pending: true })).toEqual([]);
    expect(
      await test.store.decideApproval(TEST_INSTANCE.swarm, "appr_missing", { decision: "approve", decidedAt: 8 }),
    ).toEqual({ type: "missing" });
  });
});

describe("matchesToolGlob", () => {
  it("matches full names, * and ?, and nothing else", () => {
    expect(matchesToolGlob("bash__exec", "bash__exec")).toBe(true);
    expect(matchesToolGlob("files__*", "files__write")).toBe(true);
    expect(matchesToolGlob("files__*", "xfiles__write")).toBe(false);
    expect(matchesToolGlob("f?les__read", "files__read")).toBe(true);
    expect(matchesToolGlob("bash__exec", "bash__exec2")).toBe(false);
    expect(matchesToolGlob("a.b", "axb")).toBe(false);
  });
});
