/**
 * `goondan eval` as a real process (bin/goondan; each case a daemon with real Bun agent children) against the
 * loopback LLM as the live model: a passing and a failing suite, a judge scoring through the loopback, --record
 * then --replay with identical results and no model traffic, a cassette that no longer matches reported with its
 * case and call, --compare of two prompts, the JUnit report read by an XML parser, and the budget stop.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { EvalComparison, EvalReport } from "../../src/eval/eval-report.ts";
import { GOONDAN_BIN, pidsWithCommandLine, until } from "../helpers/goondan-process.ts";
import { startLoopbackLlm, type LoopbackLlm } from "../helpers/loopback-llm.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";
import { CALL_COST_USD, PASSING_CASES, respond, writeEvalBundle } from "./eval-bundle.ts";

realProcessTimeouts();
const SLOW = 120_000;

let llm: LoopbackLlm;
const dirs: string[] = [];
beforeAll(async () => {
  llm = await startLoopbackLlm({ respond });
});
afterAll(async () => {
  await llm.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function bundle(options: { prompt?: string; cases?: string } = {}): string {
  const dir = writeEvalBundle({ endpoint: llm.url, cases: PASSING_CASES, ...options });
  dirs.push(dir);
  return dir;
}

async function goondanEval(
  args: string[],
  options: { interruptWhen?: () => boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string; report?: unknown; stateRoot: string }> {
  const out = mkdtempSync(join(tmpdir(), "goondan-eval-out-"));
  dirs.push(out);
  const json = join(out, "report.json");
  const proc = Bun.spawn(
    [process.execPath, GOONDAN_BIN, "eval", ...args, "--json", json, "--state-root", join(out, "state")],
    {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, GOONDAN_LOG_LEVEL: "warn" },
    },
  );
  const timer = setTimeout(() => proc.kill(9), SLOW - 5_000);
  if (options.interruptWhen) {
    const interruptWhen = options.interruptWhen;
    void until(() => interruptWhen() || proc.exitCode !== null, { timeoutMs: 60_000 }).then(() => proc.kill("SIGINT"));
  }
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return {
    code,
    stdout,
    stderr,
    stateRoot: join(out, "state"),
    ...(existsSync(json) ? { report: JSON.parse(readFileSync(json, "utf8")) } : {}),
  };
}

const statuses = (report: EvalReport) => Object.fromEntries(report.cases.map((result) => [result.case, result.status]));

describe("goondan eval", () => {
  it(
    "passes a suite whose replies, tool calls, files and judge meet every expectation, and exits 0",
    async () => {
      const run = await goondanEval([bundle(), "--concurrency", "2"]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const report = run.report as EvalReport;
      expect(statuses(report)).toEqual({ greets: "pass", "reads-notes": "pass", saves: "pass" });
      const greets = report.cases.find((result) => result.case === "greets");
      expect(greets?.checks.find((check) => check.name === "judge")).toMatchObject({ pass: true, score: 0.9 });
      // The agent's one call and the judge's, at the Model's price.
      expect(greets?.tokens).toEqual({ input: 200, output: 40 });
      expect(greets?.costUsd).toBeCloseTo(2 * CALL_COST_USD, 6);
      expect(report.cases.find((result) => result.case === "reads-notes")?.toolCalls).toEqual([
        { agent: "assistant", tool: "file-system__read", args: { path: "notes.md" } },
      ]);
      expect(run.stdout).toMatch(/\[3\/3\] PASS smoke\//);
      expect(run.stdout).toMatch(/STATUS\s+CASE\s+SCORE\s+TOKENS\s+COST\s+DURATION/);
    },
    SLOW,
  );

  it(
    "fails a suite with unmet expectations and a broken judge, reports each in JUnit XML, and exits 1",
    async () => {
      const cases = `    - name: greets
      input: hello
      expect: { contains: Goodbye, regex: "^Hello" }
    - name: judged-rude
      input: hello
      expect: { judge: { rubric: rude, model: Model/judge } }
    - name: judge-broken
      input: hello
      expect: { judge: { rubric: broken, model: Model/judge } }
    - name: reads-notes
      fixtures: [{ path: notes.md, content: "buy milk" }]
      input: what is in my notes?
      expect: { toolCalled: [{ tool: file-system__read, count: 2 }], maxSteps: 1 }
`;
      const dir = bundle({ cases });
      const junit = join(dir, "junit.xml");
      const run = await goondanEval([dir, "--junit", junit]);
      expect(run.code).toBe(1);
      const report = run.report as EvalReport;
      expect(statuses(report)).toEqual({
        greets: "fail",
        "judged-rude": "fail",
        "judge-broken": "error",
        "reads-notes": "fail",
      });
      const byName = (name: string) => report.cases.find((result) => result.case === name);
      expect(byName("greets")?.checks.map((check) => [check.name, check.pass])).toEqual([
        ["contains", false],
        ["regex", true],
      ]);
      expect(byName("greets")?.score).toBe(0.5);
      expect(byName("judged-rude")?.checks[0]).toMatchObject({ name: "judge", pass: false, score: 0.2 });
      expect(byName("judge-broken")?.error?.code).toBe("E_EVAL_JUDGE_FAILED");
      expect(
        byName("reads-notes")
          ?.checks.filter((check) => !check.pass)
          .map((check) => check.name),
      ).toEqual(["toolCalled", "maxSteps"]);
      expect(run.stdout).toContain('smoke/greets: contains: missing "Goodbye"');

      const xml = readFileSync(junit, "utf8");
      expect(XMLValidator.validate(xml)).toBe(true);
      const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml);
      const suite = parsed.testsuites.testsuite;
      expect(suite).toMatchObject({ name: "smoke", tests: "4", failures: "3", errors: "1" });
      const testcases = suite.testcase as { name: string; failure?: unknown; error?: { type: string } }[];
      expect(testcases.map((testcase) => testcase.name)).toEqual([
        "greets",
        "judged-rude",
        "judge-broken",
        "reads-notes",
      ]);
      expect(testcases[0]?.failure).toBeDefined();
      expect(testcases[2]?.error?.type).toBe("E_EVAL_JUDGE_FAILED");
    },
    SLOW,
  );

  it(
    "records a cassette per case, then replays them with identical results and no call to the model",
    async () => {
      const dir = bundle();
      const recorded = await goondanEval([dir, "--record"]);
      expect(recorded.code).toBe(0);
      for (const name of ["greets", "reads-notes", "saves"])
        expect(existsSync(join(dir, "evals", "cassettes", "smoke", `${name}.jsonl`))).toBe(true);
      expect(existsSync(join(dir, "evals", "cassettes", "smoke", "greets.judge.jsonl"))).toBe(true);
      const callsBefore = llm.requests.length;
      const replayed = await goondanEval([dir, "--replay"]);
      expect(replayed.code).toBe(0);
      expect(llm.requests.length).toBe(callsBefore);
      const essence = (report: EvalReport) =>
        report.cases.map(({ id, status, score, reply, replies, toolCalls, steps, tokens, checks }) => ({
          id,
          status,
          score,
          reply,
          replies,
          toolCalls,
          steps,
          tokens,
          checks: checks.filter((check) => check.name !== "maxLatencyMs"),
        }));
      expect((replayed.report as EvalReport).mode).toBe("replay");
      expect(essence(replayed.report as EvalReport)).toEqual(essence(recorded.report as EvalReport));

      // The prompt changed since: the cassette no longer matches, and the error names the case and the call.
      const yaml = readFileSync(join(dir, "goondan.yaml"), "utf8");
      writeFileSync(join(dir, "goondan.yaml"), yaml.replace("You are terse.", "You are chatty."));
      const stale = await goondanEval([dir, "--replay", "--filter", "greets"]);
      expect(stale.code).toBe(1);
      const [result] = (stale.report as EvalReport).cases;
      expect(result?.error?.code).toBe("E_EVAL_CASSETTE_MISMATCH");
      expect(result?.error?.message).toStartWith("case smoke/greets: model call 1 (Agent/assistant");
      expect(result?.error?.message).toContain("system prompt");
      expect(stale.stdout).toContain("E_EVAL_CASSETTE_MISMATCH");
    },
    SLOW * 2,
  );

  it(
    "compares two prompts side by side",
    async () => {
      const cases = "    - name: greets\n      input: hello\n      expect: { contains: Hello }\n";
      const terse = bundle({ cases });
      const shouty = bundle({ cases, prompt: "You shout." });
      const run = await goondanEval([terse, "--compare", shouty]);
      expect(run.code).toBe(1);
      const comparison = run.report as EvalComparison;
      expect(comparison.compare.map((report) => report.cases[0]?.status)).toEqual(["pass", "fail"]);
      expect(comparison.compare.map((report) => report.cases[0]?.reply)).toEqual(["Hello there, friend.", "HI THERE!"]);
      expect(run.stdout).toContain(`A: ${terse}`);
      expect(run.stdout).toContain(`B: ${shouty}`);
      expect(run.stdout).toMatch(/\*\s+smoke\/greets\s+PASS 1\.00\s+\d+\s+\$[\d.]+\s+FAIL 0\.00/);
    },
    SLOW,
  );

  it(
    "stops cleanly once the budget is spent: the cases left are skipped and the run exits 1",
    async () => {
      const cases = [1, 2, 3]
        .map((n) => `    - name: greets-${n}\n      input: hello\n      expect: { contains: Hello }\n`)
        .join("");
      const run = await goondanEval([bundle({ cases }), "--budget", "0.1"]);
      expect(run.code).toBe(1);
      const report = run.report as EvalReport;
      expect(report.stoppedBy).toBe("budget");
      expect(statuses(report)).toEqual({ "greets-1": "pass", "greets-2": "skipped", "greets-3": "skipped" });
      expect(report.cases[1]?.error?.code).toBe("E_EVAL_BUDGET_EXCEEDED");
      expect(report.totals.costUsd).toBeCloseTo(CALL_COST_USD, 6);
      expect(run.stdout).toContain("stopped: the budget of $0.1000 was spent");
    },
    SLOW,
  );

  it(
    "stops on Ctrl+C: the running case's processes stop, the rest are skipped, the report is written, exit 130",
    async () => {
      const cases = [
        "    - name: slow\n      input: take your time\n      expect: { contains: Finally }\n",
        "    - name: next\n      input: hello\n      expect: { contains: Hello }\n",
      ].join("");
      const before = llm.requests.length;
      const run = await goondanEval([bundle({ cases })], {
        interruptWhen: () =>
          llm.requests.slice(before).some((request) => JSON.stringify(request.body).includes("take your time")),
      });
      expect(run.code).toBe(130);
      const report = run.report as EvalReport;
      expect(report.stoppedBy).toBe("interrupted");
      expect(report.cases.map((result) => [result.case, result.status, result.error?.code])).toEqual([
        ["slow", "error", "E_EVAL_INTERRUPTED"],
        ["next", "skipped", "E_EVAL_INTERRUPTED"],
      ]);
      expect(pidsWithCommandLine(run.stateRoot)).toEqual([]);
    },
    SLOW,
  );
});
