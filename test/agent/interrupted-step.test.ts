/**
 * A redelivered event whose last attempt died in the middle of a step (the assistant's tool calls committed
 * before they ran, their results not): the calls are answered with E_TOOL_INTERRUPTED — saying how the process
 * died after a crash (`crashedBefore`), that the agent stopped otherwise — and nothing is re-run; the model decides
 * what to do next.
 */
import { describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { tempStateRoot as newStateRoot, testEnv, userEvent, type TestEnv } from "./support/test-env.ts";

const defer = useCleanups();
const tempStateRoot = (): string => {
  const root = newStateRoot();
  defer(() => rmSync(root, { recursive: true, force: true }));
  return root;
};

const item = (name: string) => ({ name, description: `does ${name}`, parameters: { type: "object", properties: {} } });

/** Runs a turn that dies inside its first step's tools: the store then holds the calls without results. */
async function dieInsideTools(stateRoot: string, event: ReturnType<typeof userEvent>): Promise<void> {
  const first = scriptedModel([
    {
      toolCalls: [
        { id: "c1", name: "disk__wipe" },
        { id: "c2", name: "disk__check" },
      ],
    },
  ]);
  const dying = testEnv({ model: first.model, stateRoot });
  const death = new AbortController();
  dying.registerTool(item("disk__wipe"), async (ctx) => {
    death.abort(new Error("the process is gone"));
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
    return "never stored";
  });
  dying.registerTool(item("disk__check"), () => "never reached");
  await runTurn({ env: dying.env, event, signal: death.signal });
}

function toolResultsOf(prompt: unknown): {
  toolCallId: string;
  toolName: string;
  output: { value: { status: string; error?: { code: string; message: string; suggestion?: string } } };
}[] {
  return (prompt as { role: string; content: unknown }[])
    .filter((message) => message.role === "tool")
    .flatMap((message) => message.content as never[]);
}

describe("a step interrupted by a crash", () => {
  it("answers each unanswered call with E_TOOL_INTERRUPTED naming how the process died, and runs nothing again", async () => {
    const stateRoot = tempStateRoot();
    const event = userEvent("clean the disk");
    await dieInsideTools(stateRoot, event);

    const second = scriptedModel([{ text: "the wipe took the agent down; I will not try it again" }]);
    const resumed: TestEnv = testEnv({ model: second.model, stateRoot });
    const runs: string[] = [];
    resumed.registerTool(item("disk__wipe"), () => void runs.push("wipe"));
    resumed.registerTool(item("disk__check"), () => void runs.push("check"));
    const { result } = await runTurn({
      env: resumed.env,
      event,
      redelivery: true,
      crashedBefore: "it was killed by SIGSEGV",
    });

    expect(result).toMatchObject({
      status: "ok",
      response: "the wipe took the agent down; I will not try it again",
      steps: 1,
    });
    expect(runs).toEqual([]);
    const prompt = second.calls[0]!.prompt;
    expect(prompt.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
    const answers = toolResultsOf(prompt);
    expect(
      answers.map((answer) => [
        answer.toolCallId,
        answer.toolName,
        answer.output.value.status,
        answer.output.value.error?.code,
      ]),
    ).toEqual([
      ["c1", "disk__wipe", "error", "E_TOOL_INTERRUPTED"],
      ["c2", "disk__check", "error", "E_TOOL_INTERRUPTED"],
    ]);
    expect(answers[0]!.output.value.error?.message).toContain("(it was killed by SIGSEGV)");
    expect(answers[0]!.output.value.error?.suggestion).toContain("Check its effects");
    expect(resumed.events.events.find((line) => line.type === "conversation.recovered")).toMatchObject({
      data: { interruptedCalls: ["c1", "c2"], crashedBefore: "it was killed by SIGSEGV" },
    });
    // Stored like any step's results: a later restart sees the same answers, not a dangling call.
    expect(JSON.stringify(await resumed.committed())).toContain("E_TOOL_INTERRUPTED");
    second.assertDone();
  });

  it("without crashedBefore (a stop, or goondan restarted) answers them as interrupted too, saying the agent stopped", async () => {
    const stateRoot = tempStateRoot();
    const event = userEvent("clean the disk");
    await dieInsideTools(stateRoot, event);
    const second = scriptedModel([{ text: "I will check the disk before wiping again" }]);
    const resumed = testEnv({ model: second.model, stateRoot });
    const runs: string[] = [];
    resumed.registerTool(item("disk__wipe"), () => void runs.push("wipe"));
    const { result } = await runTurn({ env: resumed.env, event, redelivery: true });
    expect(result).toMatchObject({ status: "ok", response: "I will check the disk before wiping again" });
    expect(runs).toEqual([]);
    expect(second.calls[0]!.prompt.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
    const [answer] = toolResultsOf(second.calls[0]!.prompt);
    expect(answer?.output.value.error).toMatchObject({
      code: "E_TOOL_INTERRUPTED",
      message: expect.stringContaining("the agent stopped before its result was saved"),
    });
  });

  it("looks for an interrupted step only on a redelivery (a first delivery costs nothing of the history)", async () => {
    const stateRoot = tempStateRoot();
    await dieInsideTools(stateRoot, userEvent("clean the disk"));
    const second = scriptedModel([{ text: "fine" }]);
    const fresh = testEnv({ model: second.model, stateRoot });
    await runTurn({ env: fresh.env, event: userEvent("another event") });
    expect(fresh.events.events.some((line) => line.type === "conversation.recovered")).toBe(false);
  });
});
