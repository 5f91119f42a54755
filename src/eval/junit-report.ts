/**
 * The JUnit XML report of `goondan eval --junit FILE`, in the shape CI systems read (Jenkins, GitLab, GitHub
 * test reporters): one `<testsuite>` per Eval, one `<testcase>` per case with its duration in seconds; a failing
 * case carries a `<failure>` listing its failed checks, an error case an `<error>` with its code, a skipped one
 * `<skipped>`. Each case's score, tokens and cost are kept as `<properties>`.
 */
import type { CaseResult, EvalReport } from "./eval-report.ts";

export function junitReport(report: EvalReport): string {
  const suites = new Map<string, CaseResult[]>();
  for (const result of report.cases) suites.set(result.eval, [...(suites.get(result.eval) ?? []), result]);
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="goondan eval" tests="${report.totals.cases}" failures="${report.totals.failed}" errors="${report.totals.errors}" skipped="${report.totals.skipped}" time="${seconds(report.totals.durationMs)}">`,
  ];
  for (const [name, cases] of suites) {
    const count = (status: CaseResult["status"]) => cases.filter((result) => result.status === status).length;
    const time = cases.reduce((sum, result) => sum + result.durationMs, 0);
    lines.push(
      `  <testsuite name="${xml(name)}" tests="${cases.length}" failures="${count("fail")}" errors="${count("error")}" skipped="${count("skipped")}" time="${seconds(time)}" timestamp="${xml(report.startedAt)}">`,
    );
    for (const result of cases) {
      lines.push(
        `    <testcase name="${xml(result.case)}" classname="${xml(`eval.${result.eval}`)}" time="${seconds(result.durationMs)}">`,
      );
      lines.push("      <properties>");
      lines.push(`        <property name="score" value="${result.score.toFixed(4)}"/>`);
      lines.push(`        <property name="tokens" value="${result.tokens.input + result.tokens.output}"/>`);
      lines.push(
        `        <property name="costUsd" value="${result.costUsd === null ? "unknown" : result.costUsd.toFixed(6)}"/>`,
      );
      lines.push("      </properties>");
      const failed = result.checks.filter((check) => !check.pass);
      if (result.status === "fail")
        lines.push(
          `      <failure message="${xml(failed.map((check) => check.name).join(", "))}" type="expectation">${xml(failed.map((check) => `${check.name}: ${check.detail}`).join("\n"))}</failure>`,
        );
      if (result.status === "error")
        lines.push(
          `      <error message="${xml(result.error?.message ?? "")}" type="${xml(result.error?.code ?? "error")}"/>`,
        );
      if (result.status === "skipped")
        lines.push(`      <skipped message="${xml(result.error?.message ?? "not run")}"/>`);
      lines.push(`      <system-out>${xml(result.reply)}</system-out>`);
      lines.push("    </testcase>");
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}

/** Text safe in XML content and attributes; characters XML 1.0 cannot carry are dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}
