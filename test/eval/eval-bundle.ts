/**
 * A bundle for `goondan eval` tests: one agent with the built-in file-system tool, its Model an OpenAI-compatible
 * loopback LLM (priced, so costs show), a judge Model on the same loopback, and the Eval cases a test gives. The
 * loopback's responder answers by what it is asked: greetings by the system prompt's tone, notes by reading
 * notes.md, saving by writing out.txt, and the judge by the rubric.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastUserText, systemPrompt, type LoopbackReply, type LoopbackRequest } from "../helpers/loopback-llm.ts";

export const USAGE = { promptTokens: 100, completionTokens: 20 };
/** What one call costs at the test Model's prices: 100 × $1000/M + 20 × $2000/M. */
export const CALL_COST_USD = 0.14;

export function respond(request: LoopbackRequest): LoopbackReply {
  const system = systemPrompt(request);
  const last = request.body.messages.at(-1);
  const user = lastUserText(request);
  if (user.includes("take your time")) return { text: "Finally.", delayMs: 120_000, usage: USAGE };
  if (system.includes("You grade")) {
    if (user.includes("broken")) return { text: "I cannot grade this.", usage: USAGE };
    return { text: JSON.stringify({ score: user.includes("polite") ? 0.9 : 0.2, reason: "as asked" }), usage: USAGE };
  }
  if (last?.role === "tool")
    return { text: user.includes("save") ? "Saved." : "The notes say: buy milk", usage: USAGE };
  if (user.includes("notes"))
    return { toolCalls: [{ name: "file-system__read", args: { path: "notes.md" } }], usage: USAGE };
  if (user.includes("save"))
    return { toolCalls: [{ name: "file-system__write", args: { path: "out.txt", content: "saved" } }], usage: USAGE };
  return { text: system.includes("shout") ? "HI THERE!" : "Hello there, friend.", usage: USAGE };
}

export function writeEvalBundle(options: { endpoint: string; prompt?: string; cases: string }): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-eval-"));
  mkdirSync(join(dir, "evals"));
  writeFileSync(
    join(dir, "goondan.yaml"),
    `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: live }
spec:
  provider: openai-compatible
  model: loopback
  endpoint: ${options.endpoint}
  pricing: { inputPerMillion: 1000, outputPerMillion: 2000 }
---
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: judge }
spec:
  provider: openai-compatible
  model: loopback-judge
  endpoint: ${options.endpoint}
  pricing: { inputPerMillion: 1000, outputPerMillion: 2000 }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: assistant }
spec:
  modelConfig: { modelRef: Model/live }
  prompt: { system: "${options.prompt ?? "You are terse."}" }
  tools:
    - ref: { kind: Tool, name: file-system, package: "@goondan/base" }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: demo }
spec:
  entryAgent: Agent/assistant
  agents: [Agent/assistant]
  policy: { shutdown: { gracePeriodSeconds: 2 } }
`,
  );
  writeFileSync(
    join(dir, "evals", "smoke.yaml"),
    `apiVersion: goondan.ai/v1\nkind: Eval\nmetadata: { name: smoke }\nspec:\n  cases:\n${options.cases}`,
  );
  return dir;
}

/** Cases that pass against `respond`: a greeting (judged polite), reading a fixture, writing a file. */
export const PASSING_CASES = `    - name: greets
      input: hello
      expect:
        contains: Hello
        notContains: HI
        maxSteps: 1
        maxTokens: 1000
        maxLatencyMs: 60000
        judge: { rubric: "polite and short", model: Model/judge, threshold: 0.5 }
    - name: reads-notes
      fixtures: [{ path: notes.md, content: "buy milk" }]
      input: what is in my notes?
      expect:
        toolCalled:
          - { tool: file-system__read, args: { path: { $regex: "^notes" } }, count: 1 }
        notToolCalled: file-system__write
        regex: /MILK/i
    - name: saves
      input: save it
      expect:
        toolCalled: [{ tool: file-system, args: { content: saved } }]
        fileExists: out.txt
        fileContains: [{ path: out.txt, contains: saved }]
`;
