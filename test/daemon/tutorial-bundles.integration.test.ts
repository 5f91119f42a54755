/**
 * The tutorial-shaped bundles of test/fixtures/bundles (written here in the public shapes) validate and run as
 * real processes against loopback servers: 02's Agent writes `spec.system` (a deprecation warning, and the
 * prompt the model sees) and calls a Tool of its own; 03's Extension sees ctx.conversationState and
 * result.responseMessage of a turn that ran a tool.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import type { CliIo } from "../../src/cli/command.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { startLoopbackLlm, systemPrompt, toolResults } from "../helpers/loopback-llm.ts";
import { runOnce } from "../helpers/run-once.ts";

const defer = useCleanups();
const bundle = (name: string) => new URL(`../fixtures/bundles/${name}`, import.meta.url).pathname;

async function validate(dir: string): Promise<{ code: number; out: string }> {
  let out = "";
  const io: CliIo = { stdout: (text) => void (out += text), stderr: (text) => void (out += text), env: {}, cwd: dir };
  return { code: await main(["validate", dir], io), out };
}

describe("tutorial-shaped bundles", () => {
  it("01 validates with no warning", async () => {
    const { code, out } = await validate(bundle("tutorial-01-hello"));
    expect(code).toBe(0);
    expect(out).toContain("(0 errors, 0 warnings)");
  });

  it("02 validates with a deprecation warning for spec.system and runs its own tool", async () => {
    const { code, out } = await validate(bundle("tutorial-02-tool"));
    expect(code).toBe(0);
    expect(out).toContain("W_CONFIG_DEPRECATED_FIELD");
    const llm = await startLoopbackLlm({
      respond: (request) =>
        request.body.messages.at(-1)?.role === "tool"
          ? { text: `flipped: ${JSON.stringify(toolResults(request).at(-1)?.content)}` }
          : { toolCalls: [{ name: "text-kit__flip", args: { text: "goondan" } }] },
    });
    defer(() => llm.close());
    const result = await runOnce({
      dir: bundle("tutorial-02-tool"),
      env: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "sk-tutorial" },
      input: "flip goondan",
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("nadnoog");
    expect(systemPrompt(llm.requests[0]!)).toContain("Use text-kit__flip to reverse text");
  }, 60_000);

  it("03's extension reads conversationState and responseMessage of a turn that ran a tool", async () => {
    const { code } = await validate(bundle("tutorial-03-extension"));
    expect(code).toBe(0);
    const llm = await startLoopbackLlm({
      respond: (request) =>
        request.body.messages.at(-1)?.role === "tool"
          ? { text: "ran it" }
          : { toolCalls: [{ name: "bash__exec", args: { command: "echo observed" } }] },
    });
    const dir = mkdtempSync(join(tmpdir(), "goondan-tutorial-03-"));
    defer(async () => {
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const report = join(dir, "turns.jsonl");
    const result = await runOnce({
      dir: bundle("tutorial-03-extension"),
      env: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "sk-tutorial", TURN_OBSERVER_REPORT: report },
      input: "run something",
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("ran it\n");
    const lines = readFileSync(report, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({
        finishReason: "text_response",
        textResponse: true,
        messagesBefore: 0,
        baseMessages: 0,
        events: 4,
        nextMessages: 4,
        steps: 2,
        toolCalls: 1,
        output: "ran it",
      }),
    ]);
  }, 60_000);
});
