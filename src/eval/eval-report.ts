/**
 * The JSON report of `goondan eval --json FILE`, a stable format (version 1, documented in docs/evals.md) that CI
 * and the studio's Evals view read: the run (bundle, mode, totals, why it stopped) and each case's result (status,
 * score, every check, tokens, cost, duration, where its state is kept, and its thread and trace themselves). Fields are only added,
 * never renamed or removed, within a version.
 */
import type { ErrorInfo } from "../protocol/error-info.ts";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { CaseThread } from "./case-record.ts";

export const EVAL_REPORT_VERSION = 1;

/** `pass`: every check passed; `fail`: one did not; `error`: the case could not be scored; `skipped`: not run. */
export type CaseStatus = "pass" | "fail" | "error" | "skipped";

/** How the models were called: `live` as the bundle says, `record` live and kept, `replay` from cassettes. */
export type EvalMode = "live" | "record" | "replay";

export interface TokenCount {
  input: number;
  output: number;
}

export interface CheckResult {
  /** The expectation: `contains`, `regex`, `jsonSchema`, `toolCalled`, `notToolCalled`, `maxSteps`, `maxTokens`, `maxLatencyMs`, `fileExists`, `fileContains`, `judge`. */
  name: string;
  pass: boolean;
  /** 0 to 1: 1 or 0 for most checks, the judge's own score for `judge`. */
  score: number;
  /** What was expected and what was found. */
  detail: string;
}

export interface ToolCallRecord {
  agent: string;
  tool: string;
  args: unknown;
}

export interface CaseResult {
  /** `<eval>/<case>`. */
  id: string;
  eval: string;
  case: string;
  status: CaseStatus;
  /** The mean of the checks' scores, 0 to 1 (0 for an error or a skipped case). */
  score: number;
  checks: CheckResult[];
  /** The reply to the last turn. */
  reply: string;
  /** Every turn's reply, in order. */
  replies: string[];
  toolCalls: ToolCallRecord[];
  steps: number;
  tokens: TokenCount;
  /** US dollars, agents and judge; null when a Model's price is unknown. */
  costUsd: number | null;
  /** From the first input to the last reply. */
  latencyMs: number;
  /** The case end to end (start, turns, scoring, stop). */
  durationMs: number;
  /** Where its thread and trace are kept: `goondan logs --state-root <stateRoot>` reads them. */
  stateRoot: string;
  swarm: string;
  agent: string;
  instanceKey: string;
  traceIds: string[];
  /** The cassette its models answered from (replay) or were recorded into (record). */
  cassette?: string;
  error?: ErrorInfo;
  /** Every instance's conversation (redacted; tool arguments and results bounded to 4 KiB): the studio's thread. */
  threads?: CaseThread[];
  /** The run's runtime events, as stored (redacted and bounded): the studio's trace waterfall. */
  events?: RuntimeEvent[];
  /** Set when `events` was cut short: how many the run had. */
  totalEvents?: number;
}

export interface EvalTotals {
  cases: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  tokens: TokenCount;
  costUsd: number | null;
  durationMs: number;
}

export interface EvalReport {
  version: typeof EVAL_REPORT_VERSION;
  /** Absolute bundle directory. */
  bundle: string;
  /** What was compared, when this side ran with `--model-override` (a Model name). */
  modelOverride?: string;
  mode: EvalMode;
  startedAt: string;
  /** Set when the run stopped before every case ran: `--budget` was spent, or Ctrl+C / SIGTERM. */
  stoppedBy?: "budget" | "interrupted";
  budgetUsd?: number;
  totals: EvalTotals;
  cases: CaseResult[];
}

/** `goondan eval --compare`: the two sides, the first being the bundle given (and flags) and the second `other`. */
export interface EvalComparison {
  version: typeof EVAL_REPORT_VERSION;
  compare: [EvalReport, EvalReport];
}
