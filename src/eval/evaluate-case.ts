/**
 * One case from start to result: picks the bundle for the mode (replay: every Model answers from the case's
 * cassette), runs it (run-case.ts), adds up steps, tokens and cost from the runtime events, scores it
 * (case-checks.ts, then the judge), and turns any failure into a coded error result so the other cases still run.
 * A replayed call that no longer matches its cassette is E_EVAL_CASSETTE_MISMATCH, naming the case and the first
 * divergent model call.
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, relative } from "node:path";
import { agentModel, findResource, resolveRef } from "../config/resolve.ts";
import type { Bundle, EvalCase } from "../config/types.ts";
import type { Env } from "../config/value-source.ts";
import type { ErrorInfo } from "../protocol/error-info.ts";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import { describe } from "../shared/errors.ts";
import type { Logger } from "../shared/logger.ts";
import type { ChildOutput } from "../supervision/child-output.ts";
import { replayFrom } from "./case-bundle.ts";
import { caseChecks } from "./case-checks.ts";
import { cassettePaths } from "./cassette-paths.ts";
import type { CaseResult, CheckResult, EvalMode, TokenCount } from "./eval-report.ts";
import { judgeReply } from "./judge-reply.ts";
import { addCosts, modelPricing, tokenCost } from "../config/model-prices.ts";
import { runCase, type CaseRun } from "./run-case.ts";
import { unscoredCase, type CaseIdentity } from "./unscored-case.ts";

export interface EvaluateCaseOptions {
  /** The bundle as this side runs it (with --model-override applied); prices are read from its Models. */
  bundle: Bundle;
  swarm: string;
  evalName: string;
  evalCase: EvalCase;
  agent: string;
  mode: EvalMode;
  /** This case's state root (fresh). */
  stateRoot: string;
  env: Env;
  logger: Logger;
  entryScript: string;
  output: ChildOutput;
  /** Aborted (Ctrl+C): the case stops and is an E_EVAL_INTERRUPTED error. */
  signal?: AbortSignal;
}

export async function evaluateCase(options: EvaluateCaseOptions): Promise<CaseResult> {
  const { bundle, evalCase, mode } = options;
  const id = `${options.evalName}/${evalCase.name}`;
  const cassettes = cassettePaths({ bundleDir: bundle.dir, evalName: options.evalName, caseName: evalCase.name });
  const started = performance.now();
  const base: CaseIdentity = {
    id,
    eval: options.evalName,
    case: evalCase.name,
    stateRoot: options.stateRoot,
    swarm: options.swarm,
    agent: options.agent,
    ...(mode === "live" ? {} : { cassette: relative(bundle.dir, cassettes.agents) }),
  };
  const failed = (error: ErrorInfo, run?: CaseRun): CaseResult => ({
    ...unscoredCase({ identity: base, status: "error", error, durationMs: Math.round(performance.now() - started) }),
    ...(run ? { ...factsOf(run, options.bundle), instanceKey: run.instanceKey } : {}),
  });
  if (mode === "replay" && !existsSync(cassettes.agents))
    return failed({
      code: "E_EVAL_CASSETTE_MISSING",
      message: `case ${id}: no cassette at ${relative(bundle.dir, cassettes.agents)}`,
      suggestion: "record it with `goondan eval --record`",
    });
  if (mode === "record") {
    mkdirSync(dirname(cassettes.agents), { recursive: true });
    rmSync(cassettes.agents, { force: true });
    rmSync(cassettes.judge, { force: true });
  }
  let run: CaseRun;
  try {
    run = await runCase({
      bundle: mode === "replay" ? replayFrom(bundle, relative(bundle.dir, cassettes.agents)) : bundle,
      swarm: options.swarm,
      id,
      evalCase,
      agent: options.agent,
      stateRoot: options.stateRoot,
      env: options.env,
      logger: options.logger,
      entryScript: options.entryScript,
      output: options.output,
      ...(mode === "record" ? { record: cassettes.agents } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    const described = describe(error);
    return failed({ code: described.code ?? "E_EVAL_CASE_FAILED", message: `case ${id}: ${described.message}` });
  }
  const mismatch = replayMismatch(run.events, id, relative(bundle.dir, cassettes.agents));
  if (mismatch) return failed(mismatch, run);
  const facts = factsOf(run, options.bundle);
  const last = run.outcomes.at(-1);
  if (last?.status !== "ok")
    return failed(
      {
        code: last?.error?.code ?? "E_EVAL_TURN_FAILED",
        message: `case ${id}: turn failed: ${last?.error?.message ?? "no outcome"}`,
      },
      run,
    );
  const checks: CheckResult[] = caseChecks(evalCase.expect, { ...facts, workdir: run.workdir });
  let judgeTokens: TokenCount = { input: 0, output: 0 };
  let judgeCost: number | null = 0;
  let judgeError: ErrorInfo | undefined;
  const judge = evalCase.expect.judge;
  if (judge) {
    const model = resolveRef(bundle, judge.model);
    try {
      const verdict = await judgeReply({
        judge,
        model,
        turns: evalCase.turns,
        replies: facts.replies,
        env: options.env,
        ...(mode === "record" ? { record: cassettes.judge } : {}),
        ...(mode === "replay" ? { replay: cassettes.judge } : {}),
      });
      judgeTokens = verdict.tokens;
      judgeCost = tokenCost(verdict.tokens, modelPricing(model));
      checks.push({
        name: "judge",
        pass: verdict.score >= judge.threshold,
        score: verdict.score,
        detail: `${verdict.score.toFixed(2)} (at least ${judge.threshold}): ${verdict.reason}`,
      });
    } catch (error) {
      const described = describe(error);
      judgeError = { code: described.code ?? "E_EVAL_JUDGE_FAILED", message: `case ${id}: ${described.message}` };
    }
  }
  const score = checks.length === 0 ? 1 : checks.reduce((sum, entry) => sum + entry.score, 0) / checks.length;
  return {
    ...base,
    ...facts,
    instanceKey: run.instanceKey,
    tokens: { input: facts.tokens.input + judgeTokens.input, output: facts.tokens.output + judgeTokens.output },
    costUsd: addCosts(facts.costUsd, judgeCost),
    status: judgeError ? "error" : checks.every((entry) => entry.pass) ? "pass" : "fail",
    score: judgeError ? 0 : score,
    checks,
    durationMs: Math.round(performance.now() - started),
    ...(judgeError ? { error: judgeError } : {}),
  };
}

function factsOf(run: CaseRun, bundle: Bundle) {
  const steps = run.events.filter((event) => event.type === "step.completed");
  const byAgent = new Map<string, TokenCount>();
  for (const step of steps) {
    const sum = byAgent.get(step.agent) ?? { input: 0, output: 0 };
    sum.input += step.usage?.inputTokens ?? 0;
    sum.output += step.usage?.outputTokens ?? 0;
    byAgent.set(step.agent, sum);
  }
  const tokens = [...byAgent.values()].reduce(
    (sum, count) => ({ input: sum.input + count.input, output: sum.output + count.output }),
    { input: 0, output: 0 },
  );
  const costs = [...byAgent].map(([agent, count]) => {
    const resource = findResource(bundle, "Agent", agent);
    return tokenCost(count, resource ? modelPricing(agentModel(bundle, resource)) : undefined);
  });
  const replies = run.outcomes.map((outcome) => outcome.response);
  return {
    reply: replies.at(-1) ?? "",
    replies,
    toolCalls: run.toolCalls,
    steps: steps.length,
    tokens,
    costUsd: addCosts(...costs),
    latencyMs: run.latencyMs,
    traceIds: [...new Set(run.events.filter((event) => event.type === "turn.started").map((event) => event.traceId))],
    ...run.record,
  };
}

/** The first replayed model call that matched no cassette line, as E_EVAL_CASSETTE_MISMATCH; undefined when none. */
function replayMismatch(events: RuntimeEvent[], id: string, cassette: string): ErrorInfo | undefined {
  const models = events.filter((event) => event.type === "model.completed" || event.type === "model.failed");
  const index = models.findIndex(
    (event) => event.type === "model.failed" && /MODEL_REPLAY_(MISMATCH|EXHAUSTED)$/.test(event.error?.code ?? ""),
  );
  const failed = models[index];
  if (!failed) return undefined;
  return {
    code: "E_EVAL_CASSETTE_MISMATCH",
    message: `case ${id}: model call ${index + 1} (Agent/${failed.agent}, step ${failed.stepIndex ?? "?"}) no longer matches ${cassette}: ${failed.error?.message ?? ""}`,
    suggestion: "the prompt, input or tools changed since it was recorded: re-record with `goondan eval --record`",
  };
}
