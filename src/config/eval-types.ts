/**
 * The typed shape of an `Eval` document once validated and normalized: the cases `goondan eval` runs against a
 * Swarm, each with an input (or a short script of turns), workspace fixtures and the expectations its run is
 * scored by. docs/evals.md documents every field; src/config/schemas/eval.ts is its JSON Schema.
 */
import type { JsonObject, JsonValue } from "../shared/json.ts";

/** A normalized ref to a resource of one kind (the ObjectRef of types.ts, which re-exports these types). */
export interface KindRef<K extends string> {
  kind: K;
  name: string;
  package?: string;
}

/**
 * How one tool argument is matched: a plain value must equal the argument (deeply), or one operator:
 * `{$contains: "text"}` (a string argument holds it), `{$regex: "…"}` (a string argument matches it),
 * `{$exists: true|false}`.
 */
export type ArgumentMatcher =
  | JsonValue
  | { $contains: string }
  | { $regex: string; $flags?: string }
  | { $exists: boolean };

export interface ToolCallExpectation {
  /** The tool as the model names it (`bash__exec`), or a Tool's name (`bash`: any of its exports). */
  tool: string;
  /** Arguments the call must carry, by name; other arguments are not looked at. */
  args?: Record<string, ArgumentMatcher>;
  /** How many matching calls there must be: an exact number, or bounds. Default: at least one. */
  count?: number | { min?: number; max?: number };
}

export interface FileExpectation {
  /** A path inside the entry agent's workspace. */
  path: string;
  /** Text the file must hold. */
  contains?: string;
  /** A pattern the file must match. */
  regex?: string;
}

export interface JudgeExpectation {
  /** What a good reply does; the judge Model scores the reply against it from 0 to 1. */
  rubric: string;
  /** The Model that judges. */
  model: KindRef<"Model">;
  /** The lowest passing score, 0 to 1. Default 0.7. */
  threshold: number;
}

export interface EvalExpectations {
  contains?: string[];
  notContains?: string[];
  regex?: string[];
  /** The reply parses as JSON and matches this schema. */
  jsonSchema?: JsonObject;
  toolCalled?: ToolCallExpectation[];
  /** The `toolCalled` expectations must be met in the order they are written. Default false. */
  toolOrder?: boolean;
  notToolCalled?: string[];
  /** Model steps across the case's turns (every agent). */
  maxSteps?: number;
  /** Input plus output tokens across the case (every agent; the judge not counted). */
  maxTokens?: number;
  /** From the first input to the last reply. */
  maxLatencyMs?: number;
  fileExists?: string[];
  fileContains?: FileExpectation[];
  judge?: JudgeExpectation;
}

export interface EvalFixture {
  /** A path inside the entry agent's workspace. */
  path: string;
  content: string;
}

export interface EvalCase {
  name: string;
  description?: string;
  /** The inputs sent one after another to the same instance; a case with `input` has one turn. */
  turns: string[];
  /** Default: the Eval's agent, else the Swarm's entry agent. */
  agent?: KindRef<"Agent">;
  fixtures: EvalFixture[];
  expect: EvalExpectations;
}

export interface EvalSpec {
  /** Default: the bundle's only Swarm. */
  swarm?: string;
  /** Default: the Swarm's entry agent. */
  agent?: KindRef<"Agent">;
  cases: EvalCase[];
}
