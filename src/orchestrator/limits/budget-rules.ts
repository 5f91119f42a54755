/**
 * The budgets that apply to each agent of the selected Swarm, read from the bundle (docs/limits.md#budgets): the
 * Agent's own `spec.budget` (one counter per instance, or per agent with `per: agent`) and the Swarm's (one counter
 * for the whole swarm instance), with the prices of the agent's Model for cost budgets. A cost budget on a Model
 * whose prices are unknown is refused here (`E_CONFIG_BUDGET_PRICE_UNKNOWN`), never counted as free.
 */
import { modelPricing } from "../../config/model-prices.ts";
import { agentModel, selectSwarm, swarmAgents } from "../../config/resolve.ts";
import type { Bundle, BudgetSpec, ModelPricing } from "../../config/types.ts";
import { ConfigError } from "../../shared/errors.ts";
import type { BudgetCounterKey } from "../../store/store.ts";
import { periodMs } from "./budget-period.ts";

export interface BudgetRule {
  scope: BudgetCounterKey["scope"];
  budget: BudgetSpec;
  periodMs: number;
  /** Where it is written, for messages: `Agent/worker spec.budget`. */
  where: string;
}

export interface AgentBudgets {
  rules: BudgetRule[];
  /** The prices of the agent's Model (undefined: unknown, and no rule counts cost). */
  pricing: ModelPricing | undefined;
}

/** The budgets of every member agent that has one (its own or the Swarm's), by agent name. */
export function budgetRules(bundle: Bundle, swarmName?: string): Map<string, AgentBudgets> {
  const swarm = selectSwarm(bundle, swarmName);
  const swarmRule: BudgetRule[] =
    swarm.spec.budget === undefined
      ? []
      : [rule("swarm", swarm.spec.budget, `Swarm/${swarm.metadata.name} spec.budget`)];
  const byAgent = new Map<string, AgentBudgets>();
  for (const agent of swarmAgents(bundle, swarm)) {
    const own = agent.spec.budget;
    const rules = [
      ...(own === undefined
        ? []
        : [rule(own.per === "agent" ? "agent" : "instance", own, `Agent/${agent.metadata.name} spec.budget`)]),
      ...swarmRule,
    ];
    if (rules.length === 0) continue;
    const model = agentModel(bundle, agent);
    const pricing = modelPricing(model);
    const priced = rules.find((candidate) => candidate.budget.costUsd !== undefined);
    if (priced !== undefined && pricing === undefined)
      throw new ConfigError(
        "E_CONFIG_BUDGET_PRICE_UNKNOWN",
        `${priced.where}: a costUsd budget needs the prices of Model/${model.metadata.name} (${model.spec.model}), which are unknown`,
        { suggestion: "set spec.pricing on the Model, or budget tokens instead" },
      );
    byAgent.set(agent.metadata.name, { rules, pricing });
  }
  return byAgent;
}

function rule(scope: BudgetRule["scope"], budget: BudgetSpec, where: string): BudgetRule {
  if (budget.tokens === undefined && budget.costUsd === undefined)
    throw new ConfigError("E_CONFIG_BUDGET_EMPTY", `${where}: expected tokens or costUsd (or both), got neither`);
  return { scope, budget, periodMs: periodMs(budget.period, `${where}.period`), where };
}
