/**
 * One side of `goondan eval`: the selected cases run `concurrency` at a time (each on its own daemon and state
 * root under `<stateRoot>/evals/<run>/`), a result reported as each case ends, and, with a budget, no case started
 * once the cost so far exceeds it: the cases left are `skipped` and the report says it stopped for the budget (or,
 * when the signal aborts, that it was interrupted: running cases stop their daemons first).
 * The agent entry is bundled once for the run, and this process's secrets are hidden from tool children first,
 * as `goondan run` does.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Bundle } from "../config/types.ts";
import type { Env } from "../config/value-source.ts";
import type { Logger } from "../shared/logger.ts";
import type { ChildOutput } from "../supervision/child-output.ts";
import { hideProcessSecrets } from "../tools/hide-process-secrets.ts";
import { bundleAgentEntry } from "../daemon/agent-entry-bundle.ts";
import type { CaseResult, EvalMode, EvalReport, EvalTotals } from "./eval-report.ts";
import { EVAL_REPORT_VERSION } from "./eval-report.ts";
import type { SelectedCase } from "./eval-cases.ts";
import { evaluateCase } from "./evaluate-case.ts";
import { addCosts } from "../config/model-prices.ts";
import { unscoredCase } from "./unscored-case.ts";

export interface RunEvalsOptions {
  bundle: Bundle;
  cases: SelectedCase[];
  mode: EvalMode;
  /** Where this side's cases keep their state: one directory per case under it. */
  runRoot: string;
  env: Env;
  logger: Logger;
  output: ChildOutput;
  /** Cases at once. Default 1. */
  concurrency?: number;
  /** US dollars: no case starts once the cost so far exceeds it. Default: no limit. */
  budgetUsd?: number;
  modelOverride?: string;
  /** Aborted (Ctrl+C): running cases stop, the others are not started, and the report says so. */
  signal?: AbortSignal;
  /** Called as each case ends. */
  onResult?: (result: CaseResult, done: number, total: number) => void;
}

export async function runEvals(options: RunEvalsOptions): Promise<EvalReport> {
  const startedAt = new Date();
  const started = performance.now();
  mkdirSync(options.runRoot, { recursive: true });
  await hideProcessSecrets();
  const entryScript = await bundleAgentEntry({ stateRoot: options.runRoot, logger: options.logger, env: options.env });
  const results: (CaseResult | undefined)[] = options.cases.map(() => undefined);
  let next = 0;
  let done = 0;
  let spent = 0;
  let stoppedByBudget = false;
  const worker = async (): Promise<void> => {
    for (;;) {
      const position = next++;
      const selected = options.cases[position];
      if (selected === undefined) return;
      if (options.signal?.aborted) {
        results[position] = skipped(selected, options.runRoot, "interrupted");
        continue;
      }
      if (options.budgetUsd !== undefined && spent > options.budgetUsd) {
        stoppedByBudget = true;
        results[position] = skipped(selected, options.runRoot, "budget");
        continue;
      }
      const result = await evaluateCase({
        bundle: options.bundle,
        swarm: selected.swarm,
        evalName: selected.evalName,
        evalCase: selected.evalCase,
        agent: selected.agent,
        mode: options.mode,
        stateRoot: caseRoot(options.runRoot, selected),
        env: options.env,
        logger: options.logger,
        entryScript,
        output: options.output,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      spent += result.costUsd ?? 0;
      results[position] = result;
      options.onResult?.(result, ++done, options.cases.length);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? 1, options.cases.length));
  await Promise.all(Array.from({ length: workers }, worker));
  const cases = results.filter((result): result is CaseResult => result !== undefined);
  return {
    version: EVAL_REPORT_VERSION,
    bundle: options.bundle.dir,
    ...(options.modelOverride ? { modelOverride: options.modelOverride } : {}),
    mode: options.mode,
    startedAt: startedAt.toISOString(),
    ...(options.signal?.aborted
      ? { stoppedBy: "interrupted" as const }
      : stoppedByBudget
        ? { stoppedBy: "budget" as const }
        : {}),
    ...(options.budgetUsd !== undefined ? { budgetUsd: options.budgetUsd } : {}),
    totals: totalsOf(cases, Math.round(performance.now() - started)),
    cases,
  };
}

function caseRoot(runRoot: string, selected: SelectedCase): string {
  return join(runRoot, selected.id.replace("/", "--"));
}

function skipped(selected: SelectedCase, runRoot: string, why: "budget" | "interrupted"): CaseResult {
  return unscoredCase({
    identity: {
      id: selected.id,
      eval: selected.evalName,
      case: selected.evalCase.name,
      stateRoot: caseRoot(runRoot, selected),
      swarm: selected.swarm,
      agent: selected.agent,
    },
    status: "skipped",
    error:
      why === "budget"
        ? { code: "E_EVAL_BUDGET_EXCEEDED", message: `case ${selected.id}: not run, the budget was spent` }
        : { code: "E_EVAL_INTERRUPTED", message: `case ${selected.id}: not run, the run was interrupted` },
  });
}

export function totalsOf(cases: CaseResult[], durationMs: number): EvalTotals {
  const count = (status: CaseResult["status"]) => cases.filter((result) => result.status === status).length;
  return {
    cases: cases.length,
    passed: count("pass"),
    failed: count("fail"),
    errors: count("error"),
    skipped: count("skipped"),
    tokens: {
      input: cases.reduce((sum, result) => sum + result.tokens.input, 0),
      output: cases.reduce((sum, result) => sum + result.tokens.output, 0),
    },
    costUsd: addCosts(...cases.map((result) => result.costUsd)),
    durationMs,
  };
}
