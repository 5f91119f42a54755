/**
 * The budgets' Prometheus gauges (docs/limits.md#budgets), read from the orchestrator's ledger when scraped: tokens
 * and US dollars used in each budget's current window, and how many counters are used up, summed by scope, agent
 * and period. An instance budget's counters are summed under their agent, so the series stay bounded however many
 * instances run; a swarm budget has the agent label "".
 */
import { Gauge, type Registry } from "prom-client";

/** What the gauges read of a budget (orchestrator/limits/budget-ledger.ts BudgetStatus fits). */
export interface MetricsBudgetRow {
  scope: string;
  subject: string;
  periodMs: number;
  tokens: number;
  costUsd: number;
  limitTokens?: number;
  limitCostUsd?: number;
}

type Labels = "scope" | "agent" | "period";

export function registerBudgetGauges(registry: Registry, budgets: () => Promise<readonly MetricsBudgetRow[]>): void {
  const registers = [registry];
  const labelsOf = (row: MetricsBudgetRow): Record<Labels, string> => ({
    scope: row.scope,
    agent: row.subject.split("/")[0] ?? "",
    period: `${row.periodMs / 1000}s`,
  });
  const gauge = (name: string, help: string, value: (row: MetricsBudgetRow) => number) =>
    new Gauge<Labels>({
      name,
      help,
      labelNames: ["scope", "agent", "period"],
      registers,
      async collect() {
        this.reset();
        for (const row of await budgets()) this.inc(labelsOf(row), value(row));
      },
    });
  gauge("goondan_budget_tokens_used", "Tokens counted in the current window of each budget.", (row) => row.tokens);
  gauge(
    "goondan_budget_cost_usd_used",
    "US dollars counted in the current window of each budget.",
    (row) => row.costUsd,
  );
  gauge("goondan_budget_exhausted", "Budget counters used up in their current window (calls are refused).", (row) =>
    (row.limitTokens !== undefined && row.tokens >= row.limitTokens) ||
    (row.limitCostUsd !== undefined && row.costUsd >= row.limitCostUsd)
      ? 1
      : 0,
  );
}
