/**
 * Whether a tool call is the one an Eval's `toolCalled` expects: the tool (a full model-facing name such as
 * `bash__exec`, or a Tool's name standing for any of its exports) and each argument matcher (a value equal to the
 * argument, or `{$contains}`, `{$regex, $flags?}`, `{$exists}`). Arguments the matcher does not name are ignored.
 */
import { isDeepStrictEqual } from "node:util";
import { evalPattern } from "../config/eval-pattern.ts";
import type { ArgumentMatcher, ToolCallExpectation } from "../config/types.ts";
import type { ToolCallRecord } from "./eval-report.ts";

export function isTool(call: ToolCallRecord, tool: string): boolean {
  return call.tool === tool || call.tool.startsWith(`${tool}__`);
}

export function callMatches(call: ToolCallRecord, expected: ToolCallExpectation): boolean {
  if (!isTool(call, expected.tool)) return false;
  const args = (typeof call.args === "object" && call.args !== null ? call.args : {}) as Record<string, unknown>;
  return Object.entries(expected.args ?? {}).every(([name, matcher]) =>
    argumentMatches(args[name], matcher, name in args),
  );
}

function argumentMatches(value: unknown, matcher: ArgumentMatcher, present: boolean): boolean {
  if (typeof matcher === "object" && matcher !== null && !Array.isArray(matcher)) {
    if ("$exists" in matcher) return present === matcher.$exists;
    if ("$contains" in matcher) return typeof value === "string" && value.includes(String(matcher.$contains));
    if ("$regex" in matcher)
      return typeof value === "string" && evalPattern(String(matcher.$regex), String(matcher.$flags ?? "")).test(value);
  }
  return isDeepStrictEqual(value, matcher);
}

/** `count` as bounds: a number is exact; absent is at least one. */
export function countBounds(count: ToolCallExpectation["count"]): { min: number; max: number } {
  if (count === undefined) return { min: 1, max: Number.POSITIVE_INFINITY };
  if (typeof count === "number") return { min: count, max: count };
  return { min: count.min ?? 0, max: count.max ?? Number.POSITIVE_INFINITY };
}
