/**
 * Scoring a case's run against its expectations, one CheckResult per expectation written (the judge aside, see
 * judge-reply.ts): on the last reply `contains`, `notContains`, `regex`, `jsonSchema`; on the tool calls of every
 * agent `toolCalled` (arguments, count, and with `toolOrder` the order written) and `notToolCalled`; on the runtime
 * events `maxSteps` and `maxTokens`; `maxLatencyMs`; and in the agent's workspace `fileExists` and `fileContains`.
 */
import Ajv from "ajv";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { evalPattern } from "../config/eval-pattern.ts";
import type { EvalExpectations } from "../config/types.ts";
import type { CheckResult, TokenCount, ToolCallRecord } from "./eval-report.ts";
import { callMatches, countBounds, isTool } from "./argument-matcher.ts";

export interface CaseFacts {
  reply: string;
  toolCalls: ToolCallRecord[];
  steps: number;
  tokens: TokenCount;
  latencyMs: number;
  workdir: string;
}

const check = (name: string, pass: boolean, detail: string): CheckResult => ({
  name,
  pass,
  score: pass ? 1 : 0,
  detail,
});

export function caseChecks(expect: EvalExpectations, facts: CaseFacts): CheckResult[] {
  const checks: CheckResult[] = [];
  const { reply } = facts;
  if (expect.contains) {
    const missing = expect.contains.filter((text) => !reply.includes(text));
    checks.push(
      check(
        "contains",
        missing.length === 0,
        missing.length === 0 ? "found every text" : `missing ${quoteAll(missing)}`,
      ),
    );
  }
  if (expect.notContains) {
    const found = expect.notContains.filter((text) => reply.includes(text));
    checks.push(
      check("notContains", found.length === 0, found.length === 0 ? "found none" : `found ${quoteAll(found)}`),
    );
  }
  if (expect.regex) {
    const failing = expect.regex.filter((pattern) => !evalPattern(pattern).test(reply));
    checks.push(
      check(
        "regex",
        failing.length === 0,
        failing.length === 0 ? "every pattern matched" : `no match for ${quoteAll(failing)}`,
      ),
    );
  }
  if (expect.jsonSchema) checks.push(jsonSchemaCheck(expect.jsonSchema, reply));
  if (expect.toolCalled) checks.push(toolCalledCheck(expect, facts.toolCalls));
  if (expect.notToolCalled) {
    const called = expect.notToolCalled.filter((tool) => facts.toolCalls.some((call) => isTool(call, tool)));
    checks.push(
      check("notToolCalled", called.length === 0, called.length === 0 ? "none called" : `called ${quoteAll(called)}`),
    );
  }
  if (expect.maxSteps !== undefined)
    checks.push(
      check("maxSteps", facts.steps <= expect.maxSteps, `${facts.steps} step(s), at most ${expect.maxSteps}`),
    );
  if (expect.maxTokens !== undefined) {
    const tokens = facts.tokens.input + facts.tokens.output;
    checks.push(check("maxTokens", tokens <= expect.maxTokens, `${tokens} token(s), at most ${expect.maxTokens}`));
  }
  if (expect.maxLatencyMs !== undefined)
    checks.push(
      check(
        "maxLatencyMs",
        facts.latencyMs <= expect.maxLatencyMs,
        `${facts.latencyMs} ms, at most ${expect.maxLatencyMs}`,
      ),
    );
  if (expect.fileExists) {
    const missing = expect.fileExists.filter((path) => !existsSync(join(facts.workdir, path)));
    checks.push(
      check(
        "fileExists",
        missing.length === 0,
        missing.length === 0 ? "every file exists" : `missing ${quoteAll(missing)}`,
      ),
    );
  }
  if (expect.fileContains) {
    const failing = expect.fileContains.filter((file) => {
      const text = readText(join(facts.workdir, file.path));
      if (text === undefined) return true;
      return (
        (file.contains !== undefined && !text.includes(file.contains)) ||
        (file.regex !== undefined && !evalPattern(file.regex).test(text))
      );
    });
    checks.push(
      check(
        "fileContains",
        failing.length === 0,
        failing.length === 0
          ? "every file holds what it should"
          : `not as expected: ${quoteAll(failing.map((file) => file.path))}`,
      ),
    );
  }
  return checks;
}

function jsonSchemaCheck(schema: object, reply: string): CheckResult {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(reply);
  let value: unknown;
  try {
    value = JSON.parse(fenced ? (fenced[1] as string) : reply);
  } catch {
    return check("jsonSchema", false, "the reply is not JSON");
  }
  const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
  if (validate(value)) return check("jsonSchema", true, "the reply matches the schema");
  const first = validate.errors?.[0];
  return check("jsonSchema", false, `${first?.instancePath || "/"} ${first?.message ?? "does not match"}`);
}

function toolCalledCheck(expect: EvalExpectations, calls: ToolCallRecord[]): CheckResult {
  const problems: string[] = [];
  let cursor = 0;
  for (const expected of expect.toolCalled ?? []) {
    const matching = calls.filter((call) => callMatches(call, expected));
    const { min, max } = countBounds(expected.count);
    if (matching.length < min || matching.length > max)
      problems.push(
        `${expected.tool}: ${matching.length} matching call(s), expected ${min === max ? min : `${min} to ${max === Number.POSITIVE_INFINITY ? "any" : max}`}`,
      );
    if (expect.toolOrder && min > 0) {
      const at = calls.findIndex((call, index) => index >= cursor && callMatches(call, expected));
      if (at < 0) problems.push(`${expected.tool}: not called after the calls before it`);
      else cursor = at + 1;
    }
  }
  const called = calls.map((call) => call.tool).join(", ") || "none";
  return check(
    "toolCalled",
    problems.length === 0,
    problems.length === 0 ? `called: ${called}` : `${problems.join("; ")} (called: ${called})`,
  );
}

function readText(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? readFileSync(path, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

const quoteAll = (values: string[]): string => values.map((value) => JSON.stringify(value)).join(", ");
