/**
 * What `goondan eval` prints: a progress line as each case ends, the table of every case at the end (status,
 * score, tokens, cost, duration) with the failing checks and errors under it, and with `--compare` one table of
 * both sides, case by case, with the differences marked.
 */
import { textTable } from "../shared/text-table.ts";
import type { CaseResult, EvalReport } from "./eval-report.ts";

const STATUS: Record<CaseResult["status"], string> = { pass: "PASS", fail: "FAIL", error: "ERROR", skipped: "SKIP" };

export const formatCost = (cost: number | null): string => (cost === null ? "?" : `$${cost.toFixed(4)}`);
const formatScore = (score: number): string => score.toFixed(2);
const formatTokens = (result: Pick<CaseResult, "tokens">): string => String(result.tokens.input + result.tokens.output);
const formatMs = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(1)}s` : `${ms}ms`);

/** `[2/5] PASS smoke/greets  1.00  1.2s` */
export function progressLine(result: CaseResult, done: number, total: number): string {
  const why = result.status === "error" || result.status === "skipped" ? `  ${result.error?.code ?? ""}` : "";
  return `[${done}/${total}] ${STATUS[result.status]} ${result.id}  ${formatScore(result.score)}  ${formatMs(result.durationMs)}${why}\n`;
}

export function reportTable(report: EvalReport): string {
  const rows = report.cases.map((result) => [
    STATUS[result.status],
    result.id,
    formatScore(result.score),
    formatTokens(result),
    formatCost(result.costUsd),
    formatMs(result.durationMs),
  ]);
  const { totals } = report;
  rows.push([
    "",
    `${totals.passed}/${totals.cases} passed`,
    "",
    String(totals.tokens.input + totals.tokens.output),
    formatCost(totals.costUsd),
    formatMs(totals.durationMs),
  ]);
  let text = textTable(["STATUS", "CASE", "SCORE", "TOKENS", "COST", "DURATION"], rows);
  for (const result of report.cases) {
    for (const check of result.checks.filter((entry) => !entry.pass))
      text += `  ${result.id}: ${check.name}: ${check.detail}\n`;
    if (result.error && result.status !== "skipped")
      text += `  ${result.id}: ${result.error.code}: ${result.error.message}${result.error.suggestion ? `; ${result.error.suggestion}` : ""}\n`;
  }
  if (report.stoppedBy === "interrupted") text += "stopped: interrupted; the cases not run are skipped\n";
  if (report.stoppedBy === "budget") {
    const left = report.cases.filter((result) => result.status === "skipped").length;
    text += `stopped: the budget of ${formatCost(report.budgetUsd ?? 0)} was spent (${formatCost(totals.costUsd)}); ${left} case(s) not run\n`;
  }
  return text;
}

/** Both sides case by case; `*` marks a case whose status differs. */
export function comparisonTable(options: {
  left: EvalReport;
  right: EvalReport;
  leftName: string;
  rightName: string;
}): string {
  const { left, right } = options;
  const ids = [...new Set([...left.cases.map((result) => result.id), ...right.cases.map((result) => result.id)])];
  const cell = (result: CaseResult | undefined) =>
    result
      ? [`${STATUS[result.status]} ${formatScore(result.score)}`, formatTokens(result), formatCost(result.costUsd)]
      : ["-", "-", "-"];
  const rows = ids.map((id) => {
    const a = left.cases.find((result) => result.id === id);
    const b = right.cases.find((result) => result.id === id);
    return [a?.status === b?.status ? "" : "*", id, ...cell(a), ...cell(b)];
  });
  const totals = (report: EvalReport) => [
    `${report.totals.passed}/${report.totals.cases}`,
    String(report.totals.tokens.input + report.totals.tokens.output),
    formatCost(report.totals.costUsd),
  ];
  rows.push(["", "passed", ...totals(left), ...totals(right)]);
  const a = options.leftName;
  const b = options.rightName;
  return `A: ${a}\nB: ${b}\n${textTable(["", "CASE", "A", "A TOKENS", "A COST", "B", "B TOKENS", "B COST"], rows)}`;
}
