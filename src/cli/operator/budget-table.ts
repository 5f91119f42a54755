/**
 * The budgets `goondan ps` prints under its process table (docs/limits.md#budgets): one row per counter in its
 * current window, with what it used of its limits and when the window renews.
 */
import type { BudgetStatus } from "../../orchestrator/limits/budget-ledger.ts";
import { textTable } from "../../shared/text-table.ts";

const PERIOD_UNITS: [number, string][] = [
  [86_400_000, "d"],
  [3_600_000, "h"],
  [60_000, "m"],
];

const period = (ms: number): string => {
  const [size, unit] = PERIOD_UNITS.find(([unitMs]) => ms % unitMs === 0) ?? [60_000, "m"];
  return `${ms / size}${unit}`;
};

const used = (value: number, limit: number | undefined, format: (n: number) => string): string =>
  limit === undefined ? format(value) : `${format(value)}/${format(limit)} (${Math.round((value / limit) * 100)}%)`;

export function budgetTable(budgets: readonly BudgetStatus[]): string {
  if (budgets.length === 0) return "";
  const rows = budgets.map((budget) => [
    budget.scope,
    budget.scope === "swarm" ? budget.swarm : budget.subject,
    period(budget.periodMs),
    used(budget.tokens, budget.limitTokens, String),
    used(budget.costUsd, budget.limitCostUsd, (n) => `$${n.toFixed(4)}`),
    new Date(budget.windowStart + budget.periodMs).toISOString().replace(/\.\d+Z$/, "Z"),
  ]);
  return textTable(["BUDGET", "FOR", "PERIOD", "TOKENS", "COST", "RENEWS"], rows);
}
