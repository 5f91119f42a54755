/**
 * `goondan eval` after its flags were read: validates the bundle (exit 3 with every issue), selects the cases,
 * checks the flags fit together, runs one side or, with `compare`, both (another bundle, or another Model of this
 * one), prints a progress line per case and the table at the end, writes the JSON and JUnit reports, keeps each side's
 * report under the state root for the studio's Evals view (store/eval-runs.ts), and returns
 * the exit code: 0 when every case passed, 1 otherwise (a failed, errored or skipped case), 2 for bad flags.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { formatIssues, loadBundle } from "../config/load-bundle.ts";
import { selectSwarm } from "../config/resolve.ts";
import type { Bundle } from "../config/types.ts";
import { missingEnvIssues, type Env } from "../config/value-source.ts";
import { EXIT } from "../shared/exit-codes.ts";
import { UsageError } from "../shared/errors.ts";
import { createLogger } from "../shared/logger.ts";
import { saveEvalRun } from "../store/eval-runs.ts";
import { openRunLog } from "../daemon/run-log.ts";
import { listenForShutdownSignals } from "../daemon/shutdown-signals.ts";
import { overrideModel } from "./case-bundle.ts";
import { evalCases, type SelectedCase } from "./eval-cases.ts";
import type { EvalComparison, EvalMode, EvalReport } from "./eval-report.ts";
import { junitReport } from "./junit-report.ts";
import { comparisonTable, progressLine, reportTable } from "./report-text.ts";
import { runEvals } from "./run-evals.ts";
import { EVAL_REPORT_VERSION } from "./eval-report.ts";

export interface EvalSessionOptions {
  /** The bundle directory or its goondan.yaml (absolute). */
  target: string;
  filter?: string;
  concurrency?: number;
  record?: boolean;
  replay?: boolean;
  modelOverride?: string;
  budgetUsd?: number;
  /** Another bundle (a path) or a Model name of this bundle. */
  compare?: string;
  /** Absolute paths of the reports to write. */
  json?: string;
  junit?: string;
  stateRoot: string;
  verbose?: boolean;
  env: Env;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export async function evalSession(options: EvalSessionOptions): Promise<number> {
  if (options.record && options.replay)
    throw new UsageError("E_EVAL_FLAGS", "--record and --replay exclude each other: record once, then replay");
  if (options.concurrency !== undefined && !(Number.isInteger(options.concurrency) && options.concurrency >= 1))
    throw new UsageError(
      "E_EVAL_FLAGS",
      `--concurrency: expected a whole number of at least 1, got ${options.concurrency}`,
    );
  if (options.budgetUsd !== undefined && !(options.budgetUsd >= 0))
    throw new UsageError(
      "E_EVAL_FLAGS",
      `--budget: expected US dollars (a number of at least 0), got ${options.budgetUsd}`,
    );
  const mode: EvalMode = options.record ? "record" : options.replay ? "replay" : "live";
  const first = await loadSide({ options, target: options.target, mode });
  if (typeof first === "number") return first;
  const bundleA = options.modelOverride ? overrideModel(first, options.modelOverride) : first;
  const cases = evalCases(first, options.filter);
  if (cases.length === 0)
    throw new UsageError(
      "E_EVAL_NO_CASES",
      options.filter ? `no case matches --filter ${JSON.stringify(options.filter)}` : `no Eval cases in ${first.dir}`,
      { suggestion: "add an Eval document to goondan.yaml or a file in evals/ (docs/evals.md)" },
    );
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const runRoot = join(options.stateRoot, "evals", stamp);
  mkdirSync(runRoot, { recursive: true });
  const log = openRunLog({ stateRoot: runRoot, terminal: options.verbose ? options.stderr : () => {} });
  const logger = createLogger("eval", { destination: log.destination });
  const side = (
    bundle: Bundle,
    selected: SelectedCase[],
    name: string,
    signal: AbortSignal,
    modelOverride?: string,
  ) => {
    options.stdout(
      `goondan eval: ${selected.length} case(s) of ${bundle.dir}${modelOverride ? ` with Model/${modelOverride}` : ""} (${mode}${name === "b" ? ", side B" : ""})\n`,
    );
    return runEvals({
      bundle,
      cases: selected,
      mode,
      runRoot: join(runRoot, name),
      env: options.env,
      logger,
      output: log.childLines,
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.budgetUsd !== undefined ? { budgetUsd: options.budgetUsd } : {}),
      ...(modelOverride ? { modelOverride } : {}),
      signal,
      onResult: (result, done, total) => options.stdout(progressLine(result, done, total)),
    });
  };
  // Ctrl+C or SIGTERM: running cases stop their daemons, the rest are skipped, and the reports are still written.
  const interrupt = new AbortController();
  const signals = listenForShutdownSignals();
  void signals.signalled.then(() => interrupt.abort());
  try {
    return await runSides({
      options,
      mode,
      first,
      bundleA,
      cases,
      side,
      signal: interrupt.signal,
      runRoot,
      runId: stamp,
    });
  } finally {
    signals.dispose();
  }
}

async function runSides(context: {
  options: EvalSessionOptions;
  mode: EvalMode;
  first: Bundle;
  bundleA: Bundle;
  cases: SelectedCase[];
  side: (
    bundle: Bundle,
    selected: SelectedCase[],
    name: string,
    signal: AbortSignal,
    modelOverride?: string,
  ) => Promise<EvalReport>;
  signal: AbortSignal;
  runRoot: string;
  /** The run's name under `<state root>/evals/`, where its report is kept for the studio (store/eval-runs.ts). */
  runId: string;
}): Promise<number> {
  const { options, mode, first, bundleA, cases, side, signal, runRoot } = context;
  const reportA = await side(bundleA, cases, "a", signal, options.modelOverride);
  let reports: EvalReport[] = [reportA];
  if (options.compare !== undefined && !signal.aborted) {
    const other = await otherSide({ options, bundle: first, mode });
    if (typeof other === "number") return other;
    const selected = evalCases(other.bundle, options.filter).filter((entry) =>
      cases.some((mine) => mine.id === entry.id),
    );
    const reportB = await side(other.bundle, selected, "b", signal, other.modelOverride);
    reports = [reportA, reportB];
    options.stdout(
      comparisonTable({
        left: reportA,
        right: reportB,
        leftName: `${first.dir}${options.modelOverride ? ` (Model/${options.modelOverride})` : ""}`,
        rightName: other.name,
      }),
    );
  } else {
    options.stdout(reportTable(reportA));
  }
  if (options.json) {
    const body: EvalReport | EvalComparison =
      reports.length === 2 ? { version: EVAL_REPORT_VERSION, compare: [reportA, reports[1] as EvalReport] } : reportA;
    writeReport(options.json, `${JSON.stringify(body, null, 2)}\n`);
  }
  if (options.junit) writeReport(options.junit, junitReport(reportA));
  await saveEvalRun({ stateRoot: options.stateRoot, runId: context.runId, report: reportA });
  if (reports[1]) await saveEvalRun({ stateRoot: options.stateRoot, runId: `${context.runId}-b`, report: reports[1] });
  options.stdout(`state of every case: ${runRoot}\n`);
  if (signal.aborted) return EXIT.interrupted;
  return reports.every((report) => report.cases.every((result) => result.status === "pass")) ? EXIT.ok : EXIT.failure;
}

async function loadSide(context: {
  options: EvalSessionOptions;
  target: string;
  mode: EvalMode;
}): Promise<Bundle | number> {
  const { options } = context;
  const loaded = await loadBundle(context.target, { env: options.env });
  if (!loaded.valid || !loaded.bundle) {
    options.stderr(`goondan eval: invalid bundle ${context.target}:\n${formatIssues(loaded.errors)}\n`);
    return EXIT.configInvalid;
  }
  if (context.mode === "replay") return loaded.bundle;
  const swarms = new Set(evalCases(loaded.bundle).map((entry) => entry.swarm));
  const missing = [...swarms].flatMap((swarm) =>
    missingEnvIssues(loaded.bundle as Bundle, selectSwarm(loaded.bundle as Bundle, swarm), options.env),
  );
  if (missing.length > 0) {
    options.stderr(`goondan eval: missing environment (or run with --replay):\n${formatIssues(missing)}\n`);
    return EXIT.configInvalid;
  }
  return loaded.bundle;
}

async function otherSide(context: {
  options: EvalSessionOptions;
  bundle: Bundle;
  mode: EvalMode;
}): Promise<{ bundle: Bundle; name: string; modelOverride?: string } | number> {
  const { options } = context;
  const compare = options.compare as string;
  const path = resolve(options.cwd, compare);
  if (existsSync(path)) {
    if (options.record)
      throw new UsageError(
        "E_EVAL_FLAGS",
        "--compare with --record: record each bundle on its own, then compare with --replay",
      );
    const bundle = await loadSide({ options, target: path, mode: context.mode });
    return typeof bundle === "number" ? bundle : { bundle, name: bundle.dir };
  }
  if (options.record || options.replay)
    throw new UsageError(
      "E_EVAL_FLAGS",
      `--compare ${compare}: comparing Models runs them live; with --${options.record ? "record" : "replay"} both sides would share one cassette`,
    );
  return {
    bundle: overrideModel(context.bundle, compare, "--compare (neither a path nor a Model of the bundle)"),
    name: `${context.bundle.dir} (Model/${compare})`,
    modelOverride: compare,
  };
}

function writeReport(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
