/**
 * The runs of `goondan eval` kept under a state root, for the studio's Evals view: each run's JSON report (the one
 * `--json` writes, docs/evals.md) at `<state root>/evals/<run id>.json`, beside the run's state directory
 * `<state root>/evals/<run id>/`. A run id is the time it started (`2026-11-27T22-45-01-123Z`; the second side of
 * `--compare` adds `-b`), so names sort in time order. Only the newest EVAL_RUNS_KEPT reports and run directories
 * are kept: saving a run removes the older ones. Reading lists the runs newest first, each summed up from its
 * report, and a run's report whole. The report's own type lives with `goondan eval` (src/eval/eval-report.ts, a layer
 * above); this file reads only the fields it sums up.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { isJsonObject, type JsonObject } from "../shared/json.ts";

/** Runs kept per state root. */
export const EVAL_RUNS_KEPT = 50;

/** What a run id looks like (the route's path schema uses it too). */
export const EVAL_RUN_ID_PATTERN = "^[0-9A-Za-z][0-9A-Za-z-]{0,63}$";

/** One run as the list shows it. */
export interface EvalRunSummary {
  id: string;
  startedAt: string;
  bundle: string;
  mode: string;
  modelOverride?: string;
  stoppedBy?: string;
  cases: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  tokens: { input: number; output: number };
  costUsd: number | null;
  durationMs: number;
}

/** The runs of one state root: `GET /v1/evals` and `GET /v1/evals/:runId` read them. */
export interface EvalRuns {
  list(): Promise<EvalRunSummary[]>;
  /** The run's report; undefined when no such run is kept. */
  read(runId: string): Promise<JsonObject | undefined>;
}

const evalsDir = (stateRoot: string) => join(stateRoot, "evals");

/** Writes a run's report (whole, then renamed into place) and removes the runs beyond the newest EVAL_RUNS_KEPT. */
export async function saveEvalRun(options: { stateRoot: string; runId: string; report: object }): Promise<string> {
  const dir = evalsDir(options.stateRoot);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${options.runId}.json`);
  const partial = `${path}.partial`;
  writeFileSync(partial, `${JSON.stringify(options.report)}\n`);
  await rename(partial, path);
  pruneEvalRuns(options.stateRoot);
  return path;
}

/** Removes the reports, and the run directories, beyond the newest EVAL_RUNS_KEPT of each. */
export function pruneEvalRuns(stateRoot: string, keep = EVAL_RUNS_KEPT): void {
  const dir = evalsDir(stateRoot);
  if (!existsSync(dir)) return;
  const entries = readdirSync(dir, { withFileTypes: true });
  const newestFirst = (names: string[]) => names.sort().reverse();
  const reports = newestFirst(
    entries.filter((entry) => entry.isFile() && entry.name.endsWith(".json")).map((e) => e.name),
  );
  const runDirs = newestFirst(entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name));
  for (const name of [...reports.slice(keep), ...runDirs.slice(keep)])
    rmSync(join(dir, name), { recursive: true, force: true });
}

/** The kept runs of `stateRoot`, read when asked (a run `goondan eval` saves later shows on the next read). */
export function evalRuns(stateRoot: string): EvalRuns {
  const read = async (runId: string): Promise<JsonObject | undefined> => {
    if (!new RegExp(EVAL_RUN_ID_PATTERN).test(runId)) return undefined;
    const text = await readFile(join(evalsDir(stateRoot), `${runId}.json`), "utf8").catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      const report: unknown = JSON.parse(text);
      return isJsonObject(report) ? report : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    read,
    async list() {
      const dir = evalsDir(stateRoot);
      if (!existsSync(dir)) return [];
      const ids = readdirSync(dir)
        .filter((name) => name.endsWith(".json"))
        .map((name) => name.slice(0, -".json".length))
        .sort()
        .reverse()
        .slice(0, EVAL_RUNS_KEPT);
      const reports = await Promise.all(ids.map(read));
      return ids.flatMap((id, index) => {
        const report = reports[index];
        return report ? [summaryOf(id, report)] : [];
      });
    },
  };
}

function summaryOf(id: string, report: JsonObject): EvalRunSummary {
  const totals = (isJsonObject(report.totals) ? report.totals : {}) as Record<string, unknown>;
  const tokens = (isJsonObject(totals.tokens) ? totals.tokens : {}) as Record<string, unknown>;
  const number = (value: unknown) => (typeof value === "number" ? value : 0);
  return {
    id,
    startedAt: String(report.startedAt ?? ""),
    bundle: String(report.bundle ?? ""),
    mode: String(report.mode ?? ""),
    ...(typeof report.modelOverride === "string" ? { modelOverride: report.modelOverride } : {}),
    ...(typeof report.stoppedBy === "string" ? { stoppedBy: report.stoppedBy } : {}),
    cases: number(totals.cases),
    passed: number(totals.passed),
    failed: number(totals.failed),
    errors: number(totals.errors),
    skipped: number(totals.skipped),
    tokens: { input: number(tokens.input), output: number(tokens.output) },
    costUsd: typeof totals.costUsd === "number" ? totals.costUsd : null,
    durationMs: number(totals.durationMs),
  };
}
