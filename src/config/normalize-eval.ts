/**
 * An Eval document's spec with its defaults applied: `input` becomes a one-turn `turns`, single strings become
 * lists, fixtures default to none, a judge's threshold to 0.7, and the agent and judge Model refs are normalized
 * through the caller's ref reader (so check-refs reports a missing Agent or Model with the names that exist).
 */
import type { EvalCase, EvalExpectations, EvalSpec, KindRef } from "./eval-types.ts";
import type { PathSegment } from "./issues.ts";

/** The default lowest passing judge score. */
export const DEFAULT_JUDGE_THRESHOLD = 0.7;

type Raw = Record<string, any>;
type RefReader = <K extends "Agent" | "Model">(
  input: unknown,
  kind: K,
  segments: PathSegment[],
) => KindRef<K> | undefined;

export function normalizeEval(spec: Raw, refTo: RefReader): EvalSpec {
  const agent = spec.agent === undefined ? undefined : refTo(spec.agent, "Agent", ["spec", "agent"]);
  return {
    ...(spec.swarm !== undefined ? { swarm: spec.swarm } : {}),
    ...(agent ? { agent } : {}),
    cases: (spec.cases as Raw[]).map((raw, index) => normalizeCase(raw, ["spec", "cases", index], refTo)),
  };
}

function normalizeCase(raw: Raw, at: PathSegment[], refTo: RefReader): EvalCase {
  const agent = raw.agent === undefined ? undefined : refTo(raw.agent, "Agent", [...at, "agent"]);
  return {
    name: raw.name,
    ...(raw.description !== undefined ? { description: raw.description } : {}),
    turns: raw.turns !== undefined ? [...raw.turns] : raw.input !== undefined ? [raw.input] : [],
    ...(agent ? { agent } : {}),
    fixtures: ((raw.fixtures ?? []) as Raw[]).map((fixture) => ({ path: fixture.path, content: fixture.content })),
    expect: normalizeExpectations(raw.expect ?? {}, [...at, "expect"], refTo),
  };
}

const list = (value: unknown): string[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? [...value] : [value as string];

function normalizeExpectations(raw: Raw, at: PathSegment[], refTo: RefReader): EvalExpectations {
  const expectations: EvalExpectations = {};
  for (const key of ["contains", "notContains", "regex", "notToolCalled", "fileExists"] as const) {
    const values = list(raw[key]);
    if (values) expectations[key] = values;
  }
  if (raw.jsonSchema !== undefined) expectations.jsonSchema = raw.jsonSchema;
  if (raw.toolCalled !== undefined)
    expectations.toolCalled = (raw.toolCalled as Raw[]).map((call) => ({
      tool: call.tool,
      ...(call.args !== undefined ? { args: call.args } : {}),
      ...(call.count !== undefined ? { count: call.count } : {}),
    }));
  if (raw.toolOrder !== undefined) expectations.toolOrder = raw.toolOrder;
  for (const key of ["maxSteps", "maxTokens", "maxLatencyMs"] as const)
    if (raw[key] !== undefined) expectations[key] = raw[key];
  if (raw.fileContains !== undefined)
    expectations.fileContains = (raw.fileContains as Raw[]).map((file) => ({ ...file }) as never);
  if (raw.judge !== undefined) {
    const model = refTo(raw.judge.model, "Model", [...at, "judge", "model"]);
    expectations.judge = {
      rubric: raw.judge.rubric,
      model: model ?? { kind: "Model", name: "" },
      threshold: raw.judge.threshold ?? DEFAULT_JUDGE_THRESHOLD,
    };
  }
  return expectations;
}
