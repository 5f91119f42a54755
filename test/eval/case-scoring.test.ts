/**
 * Scoring without processes: each expectation's check on a case's facts (tool argument matchers, counts and order,
 * JSON replies, files), the judge's verdict read from its answer, prices and costs, the --filter pattern, and the
 * JUnit report's escaping.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { caseChecks, type CaseFacts } from "../../src/eval/case-checks.ts";
import { readVerdict } from "../../src/eval/judge-reply.ts";
import { addCosts, modelPricing, tokenCost } from "../../src/config/model-prices.ts";
import { junitReport } from "../../src/eval/junit-report.ts";
import { totalsOf } from "../../src/eval/run-evals.ts";
import type { CaseResult, EvalReport } from "../../src/eval/eval-report.ts";
import type { ModelResource } from "../../src/config/types.ts";

const workdir = mkdtempSync(join(tmpdir(), "goondan-eval-scoring-"));
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

const facts = (overrides: Partial<CaseFacts> = {}): CaseFacts => ({
  reply: "",
  toolCalls: [],
  steps: 1,
  tokens: { input: 10, output: 5 },
  latencyMs: 100,
  workdir,
  ...overrides,
});

const calls = [
  { agent: "a", tool: "file-system__read", args: { path: "notes.md", limit: 10 } },
  { agent: "b", tool: "bash__exec", args: { command: "wc -w notes.md" } },
  { agent: "a", tool: "file-system__read", args: { path: "todo.md" } },
];

describe("options.expect.toolCalled", () => {
  it("matches arguments by value, $contains, $regex and $exists, ignoring the arguments not named", () => {
    const [check] = caseChecks(
      {
        toolCalled: [
          { tool: "file-system__read", args: { path: "notes.md" } },
          { tool: "bash", args: { command: { $contains: "wc" } } },
          { tool: "file-system__read", args: { path: { $regex: "^TODO", $flags: "i" }, limit: { $exists: false } } },
        ],
      },
      facts({ toolCalls: calls }),
    );
    expect(check).toMatchObject({ name: "toolCalled", pass: true, score: 1 });
  });

  it("counts matching calls against an exact count or bounds, at least one when absent", () => {
    const [exact] = caseChecks({ toolCalled: [{ tool: "file-system__read", count: 1 }] }, facts({ toolCalls: calls }));
    expect(exact?.pass).toBe(false);
    expect(exact?.detail).toStartWith("file-system__read: 2 matching call(s), expected 1");
    const [bounded] = caseChecks(
      { toolCalled: [{ tool: "file-system", count: { min: 2, max: 3 } }] },
      facts({ toolCalls: calls }),
    );
    expect(bounded?.pass).toBe(true);
    const [none] = caseChecks({ toolCalled: [{ tool: "file-system__write" }] }, facts({ toolCalls: calls }));
    expect(none?.pass).toBe(false);
  });

  it("with toolOrder, needs the calls in the order written", () => {
    const inOrder = caseChecks(
      { toolCalled: [{ tool: "file-system__read" }, { tool: "bash__exec" }], toolOrder: true },
      facts({ toolCalls: calls }),
    );
    expect(inOrder[0]?.pass).toBe(true);
    const reversed = caseChecks(
      {
        toolCalled: [{ tool: "bash__exec" }, { tool: "file-system__read", args: { path: "notes.md" } }],
        toolOrder: true,
      },
      facts({ toolCalls: calls }),
    );
    expect(reversed[0]?.pass).toBe(false);
  });
});

describe("the reply, usage and workspace checks", () => {
  it("reads a JSON reply, fenced or not, against the schema", () => {
    const schema = { type: "object", required: ["status"] };
    expect(caseChecks({ jsonSchema: schema }, facts({ reply: '```json\n{"status": "ok"}\n```' }))[0]?.pass).toBe(true);
    expect(caseChecks({ jsonSchema: schema }, facts({ reply: "{}" }))[0]?.detail).toContain("status");
    expect(caseChecks({ jsonSchema: schema }, facts({ reply: "ok" }))[0]?.detail).toBe("the reply is not JSON");
  });

  it("checks text, patterns with flags, limits and files, one result per expectation", () => {
    writeFileSync(join(workdir, "out.txt"), "saved 3 items");
    const checks = caseChecks(
      {
        contains: ["Hello"],
        notContains: ["sorry"],
        regex: ["/WORLD/i"],
        notToolCalled: ["bash"],
        maxSteps: 1,
        maxTokens: 10,
        maxLatencyMs: 1000,
        fileExists: ["out.txt", "missing.txt"],
        fileContains: [{ path: "out.txt", contains: "saved", regex: "\\d+ items" }],
      },
      facts({ reply: "Hello world", toolCalls: calls }),
    );
    expect(checks.map((check) => [check.name, check.pass])).toEqual([
      ["contains", true],
      ["notContains", true],
      ["regex", true],
      ["notToolCalled", false],
      ["maxSteps", true],
      ["maxTokens", false],
      ["maxLatencyMs", true],
      ["fileExists", false],
      ["fileContains", true],
    ]);
    expect(checks[7]?.detail).toBe('missing "missing.txt"');
  });
});

describe("the judge's verdict", () => {
  it("is the first JSON object of its answer, with a score from 0 to 1", () => {
    expect(readVerdict('Sure. {"score": 0.75, "reason": "close"}', "judge")).toEqual({ score: 0.75, reason: "close" });
  });

  it("is E_EVAL_JUDGE_FAILED when the answer holds no score in range", () => {
    expect(() => readVerdict('{"score": 7}', "judge")).toThrow(
      expect.objectContaining({ code: "E_EVAL_JUDGE_FAILED" }),
    );
    expect(() => readVerdict("no idea", "judge")).toThrow(expect.objectContaining({ code: "E_EVAL_JUDGE_FAILED" }));
  });
});

describe("costs", () => {
  const model = (spec: Partial<ModelResource["spec"]>) =>
    ({ spec: { provider: "openai", model: "x", ...spec } }) as ModelResource;

  it("takes spec.pricing first, then the longest default prefix, and a replay Model is free", () => {
    expect(modelPricing(model({ model: "gpt-4o", pricing: { inputPerMillion: 1, outputPerMillion: 2 } }))).toEqual({
      inputPerMillion: 1,
      outputPerMillion: 2,
    });
    expect(modelPricing(model({ model: "gpt-4o-mini-2024-07-18" }))?.inputPerMillion).toBe(0.15);
    expect(modelPricing(model({ provider: "replay" }))).toEqual({ inputPerMillion: 0, outputPerMillion: 0 });
    expect(modelPricing(model({ model: "my-own" }))).toBeUndefined();
  });

  it("is unknown (null) for priced-less tokens, and stays unknown in a sum", () => {
    expect(tokenCost({ input: 1_000_000, output: 500_000 }, { inputPerMillion: 2, outputPerMillion: 4 })).toBe(4);
    expect(tokenCost({ input: 1, output: 0 }, undefined)).toBeNull();
    expect(addCosts(1, null, 2)).toBeNull();
  });
});

describe("the JUnit report", () => {
  it("escapes what XML cannot hold as text, so any reply parses", () => {
    const result: CaseResult = {
      id: "s/c",
      eval: "s",
      case: "c",
      status: "fail",
      score: 0,
      checks: [{ name: "contains", pass: false, score: 0, detail: 'missing "<b>&"' }],
      reply: 'a <tag> & \u0001 "quoted" ]]>',
      replies: [],
      toolCalls: [],
      steps: 0,
      tokens: { input: 0, output: 0 },
      costUsd: null,
      latencyMs: 0,
      durationMs: 1500,
      stateRoot: "/tmp",
      swarm: "s",
      agent: "a",
      instanceKey: "k",
      traceIds: [],
    };
    const report: EvalReport = {
      version: 1,
      bundle: "/b",
      mode: "live",
      startedAt: "2026-01-01T00:00:00.000Z",
      totals: totalsOf([result], 1500),
      cases: [result],
    };
    const xml = junitReport(report);
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml);
    const testcase = parsed.testsuites.testsuite.testcase;
    expect(testcase).toMatchObject({ name: "c", time: "1.500" });
    // The parser gives back the reply as written, less the control character XML 1.0 cannot carry.
    expect(testcase["system-out"]).toBe('a <tag> &  "quoted" ]]>');
  });
});
