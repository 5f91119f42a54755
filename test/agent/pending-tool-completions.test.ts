import { describe, expect, it } from "bun:test";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { PendingResults } from "../../src/agent/conversation/pending-results.ts";
import { ToolCompletions } from "../../src/agent/conversation/tool-completions.ts";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { newId } from "../../src/shared/ids.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { pending } from "../../src/tools/pending.ts";
import { ToolFault } from "../../src/tools/tool-errors.ts";
import type { ToolHandler } from "../../src/tools/types.ts";
import { scriptedModel, type ScriptedReply } from "../helpers/scripted-model.ts";
import { storeFor, tempStateRoot, TEST_INSTANCE, testEnv, userEvent } from "./support/test-env.ts";
import { reply } from "../helpers/outcomes.ts";

const startItem = { name: "job__start", description: "starts a job", parameters: { type: "object", properties: {} } };
const echoItem = { name: "echo__say", description: "echo", parameters: { type: "object", properties: {} } };

function harness(options: { replies: ScriptedReply[]; start: ToolHandler; stateRoot?: string }) {
  const scripted = scriptedModel(options.replies);
  const test = testEnv({
    model: scripted.model,
    ...(options.stateRoot === undefined ? {} : { stateRoot: options.stateRoot }),
  });
  const pendingResults = test.env.pendingResults;
  const completions = new ToolCompletions({
    pendingResults,
    commit: test.env.commit,
    ids: newId,
    logger: silentLogger(),
  });
  test.env.toolCompletions = completions;
  test.registerTool(startItem, options.start);
  test.registerTool(echoItem, () => "echoed");
  return { scripted, env: test.env, test, completions, pendingResults };
}

/** The text of every user message in a model call's prompt. */
function userTexts(call: LanguageModelV3CallOptions | undefined): string[] {
  if (call === undefined) throw new Error("the model was not called that often");
  return call.prompt.flatMap((message) =>
    message.role === "user" ? message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])) : [],
  );
}

/** The ToolResult shown in the completion message for `handle`, or undefined when there is none. */
function shownCompletion(call: LanguageModelV3CallOptions | undefined, handle: string): unknown {
  const text = userTexts(call).find(
    (candidate) => candidate.startsWith("[completion of pending tool call") && candidate.includes(`handle ${handle}`),
  );
  return text === undefined ? undefined : JSON.parse(text.slice(text.indexOf("\n") + 1));
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

describe("pending tool completions", () => {
  it("show a pending tool's completion to the model before the next step", async () => {
    const { scripted, env, pendingResults } = harness({
      replies: [{ toolCalls: [{ id: "c1", name: "job__start" }] }, { text: "the job found 3 rows" }],
      start: () => pending("job-1", { accepted: true }, { completion: Promise.resolve({ rows: 3 }) }),
    });
    const { result } = await runTurn({ env, event: userEvent("run the job") });
    expect(result).toMatchObject({ status: "ok", steps: 2 });
    const second = scripted.calls[1];
    const toolMessage = second?.prompt.find((message) => message.role === "tool");
    expect(toolMessage?.content[0]).toMatchObject({
      output: { value: { status: "pending", handle: "job-1", output: { accepted: true } } },
    });
    expect(shownCompletion(second, "job-1")).toEqual({ status: "ok", output: { rows: 3 } });
    expect(userTexts(second).find((text) => text.includes("handle job-1"))).toContain("job__start (call c1");
    expect(pendingResults.list()).toEqual([]);
    scripted.assertDone();
  });

  it("show a rejected completion as a structured tool error", async () => {
    const { scripted, env } = harness({
      replies: [{ toolCalls: [{ name: "job__start" }] }, { text: "the job failed" }],
      start: () =>
        pending("job-2", undefined, {
          completion: Promise.reject(new ToolFault("E_JOB_FAILED", "disk full", { suggestion: "free some space" })),
        }),
    });
    await runTurn({ env, event: userEvent("run the job") });
    expect(shownCompletion(scripted.calls[1], "job-2")).toEqual({
      status: "error",
      error: {
        code: "E_JOB_FAILED",
        name: "ToolFault",
        message: "disk full",
        suggestion: "free some space",
        helpUrl: "https://docs.goondan.ai/errors/E_JOB_FAILED",
      },
    });
    scripted.assertDone();
  });

  it("show a completion that settles during a later step before the step after it", async () => {
    const job = deferred<string>();
    const settleDuringStep: ScriptedReply = () => {
      job.resolve("finished late");
      return { toolCalls: [{ name: "echo__say" }] };
    };
    const { scripted, env } = harness({
      replies: [{ toolCalls: [{ name: "job__start" }] }, settleDuringStep, { text: "done" }],
      start: () => pending("job-3", undefined, { completion: job.promise }),
    });
    await runTurn({ env, event: userEvent("run the job") });
    expect(shownCompletion(scripted.calls[1], "job-3")).toBeUndefined();
    expect(shownCompletion(scripted.calls[2], "job-3")).toEqual({ status: "ok", output: "finished late" });
    scripted.assertDone();
  });

  it("keep a completion that arrives between turns durably, and show it in the next turn", async () => {
    const stateRoot = tempStateRoot();
    const job = deferred<{ rows: number }>();
    const first = harness({
      stateRoot,
      replies: [{ toolCalls: [{ name: "job__start" }] }, { text: "started" }],
      start: () => pending("job-4", undefined, { completion: job.promise }),
    });
    await runTurn({ env: first.env, event: userEvent("start it") });
    job.resolve({ rows: 9 });
    await first.completions.idle();
    await first.test.finishTurn();
    first.pendingResults.close();

    // Durable in the store: a restarted child is handed it.
    expect(storeFor(stateRoot).instanceState(TEST_INSTANCE).pendingResults).toMatchObject([
      {
        kind: "tool_completion",
        handle: "job-4",
        toolName: "job__start",
        result: { status: "ok", output: { rows: 9 } },
      },
    ]);

    const second = harness({ stateRoot, replies: [{ text: "9 rows" }], start: () => "unused" });
    await runTurn({ env: second.env, event: userEvent("what happened?") });
    expect(shownCompletion(second.scripted.calls[0], "job-4")).toEqual({ status: "ok", output: { rows: 9 } });
    expect(second.pendingResults.list()).toEqual([]);
  });
});

describe("PendingResults", () => {
  it("keep a result handed over twice once, and hand the ids they showed to the next commit", () => {
    const completion = {
      kind: "tool_completion" as const,
      id: "tcmp_1",
      handle: "job-1",
      toolName: "job__start",
      toolCallId: "c1",
      result: { status: "ok" as const, output: 1 },
    };
    const results = new PendingResults([
      reply({ correlationId: "corr_1", agent: "worker", instanceKey: "main", response: "42 files" }),
    ]);
    results.add(completion);
    results.add(completion);
    expect(results.list().map((item) => ("correlationId" in item ? item.correlationId : item.id))).toEqual([
      "corr_1",
      "tcmp_1",
    ]);
    results.remove(["corr_1"]);
    expect(results.list()).toEqual([completion]);
    expect(results.takeConsumed()).toEqual(["corr_1"]);
    expect(results.takeConsumed()).toEqual([]);
  });

  it("refuse additions once closed (the instance is gone)", () => {
    const results = new PendingResults();
    results.close();
    expect(results.add(reply({ correlationId: "corr_2", agent: "a", instanceKey: "k" }))).toBe(false);
    expect(results.list()).toEqual([]);
  });
});
