/**
 * Budgets (Agent and Swarm `spec.budget`, docs/limits.md#budgets) checked where they are written: a budget must
 * limit tokens, cost or both. Whether a cost budget's Model has prices is checked when the swarm starts, where the
 * agent's Model is resolved (`E_CONFIG_BUDGET_PRICE_UNKNOWN`).
 */
import type { IssueList } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";

export function checkBudgetConfig(options: { resources: readonly LoadedResource[]; issues: IssueList }): void {
  for (const loaded of options.resources) {
    const { resource } = loaded;
    if (resource.kind !== "Agent" && resource.kind !== "Swarm") continue;
    const budget = resource.spec.budget;
    if (budget === undefined || budget.tokens !== undefined || budget.costUsd !== undefined) continue;
    options.issues.at(loaded.site, ["spec", "budget"], {
      code: "E_CONFIG_BUDGET_EMPTY",
      message: "expected spec.budget to set tokens, costUsd or both, got neither",
      suggestion: "for example budget: { tokens: 1000000, period: 1d }",
    });
  }
}
