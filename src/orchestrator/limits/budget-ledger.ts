/**
 * The orchestrator's budget ledger (docs/limits.md#budgets): before each model call it checks every budget that
 * applies to the calling instance against its durable counter, and refuses the call with `E_BUDGET_EXCEEDED` once
 * one is used up; after the call it adds the tokens and their cost to each counter. The orchestrator is the
 * counters' only writer, so a counter read once from the store is kept in memory and written through. A call
 * checked while others of the same budget are in flight may overshoot it by what those calls spend.
 */
import { tokenCost } from "../../config/model-prices.ts";
import type { Bundle } from "../../config/types.ts";
import type { Clock } from "../../shared/clock.ts";
import { ConfigError, UsageError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import { BUDGET_EXCEEDED } from "../../protocol/model-permit.ts";
import type { BudgetCounterKey, BudgetCounters, BudgetUsage } from "../../store/store.ts";
import { windowStart } from "./budget-period.ts";
import { budgetRules, type AgentBudgets, type BudgetRule } from "./budget-rules.ts";

export interface BudgetCaller {
  swarm: string;
  agent: string;
  instanceKey: string;
}

/** One budget as `ps` and `/metrics` show it: its counter now and its limits. */
export interface BudgetStatus extends BudgetCounterKey, BudgetUsage {
  limitTokens?: number;
  limitCostUsd?: number;
  where: string;
}

export class BudgetLedger {
  private budgets = new Map<string, AgentBudgets>();
  private readonly cache = new Map<string, BudgetUsage>();

  constructor(private readonly options: { counters: BudgetCounters | undefined; clock: Clock; logger: Logger }) {}

  /** Reads the bundle's budgets; throws ConfigError when it has some the store cannot keep. */
  configure(bundle: Bundle, swarm?: string): void {
    const budgets = budgetRules(bundle, swarm);
    if (budgets.size > 0 && this.options.counters === undefined)
      throw new ConfigError(
        "E_CONFIG_BUDGET_UNSUPPORTED",
        `${[...budgets.values()][0]?.rules[0]?.where}: budgets need a store that keeps their counters; this state store (cluster mode, NATS) does not`,
        { suggestion: "remove spec.budget, or run the swarm on the embedded store" },
      );
    this.budgets = budgets;
  }

  /** Whether any budget applies to the agent (its calls then ask for a permit). */
  applies(agent: string): boolean {
    return this.budgets.has(agent);
  }

  /** Throws UsageError `E_BUDGET_EXCEEDED` when a budget of the caller is used up. */
  async check(caller: BudgetCaller): Promise<void> {
    const budgets = this.budgets.get(caller.agent);
    if (budgets === undefined) return;
    const now = this.options.clock.now();
    for (const rule of budgets.rules) {
      const key = this.key(rule, caller, now);
      const used = await this.usage(key);
      const { tokens, costUsd } = rule.budget;
      const over =
        tokens !== undefined && used.tokens >= tokens
          ? `${used.tokens} of ${tokens} tokens`
          : costUsd !== undefined && used.costUsd >= costUsd
            ? `$${used.costUsd.toFixed(4)} of $${costUsd}`
            : undefined;
      if (over === undefined) continue;
      const resetsAt = new Date(key.windowStart + key.periodMs).toISOString();
      throw new UsageError(
        BUDGET_EXCEEDED,
        `${rule.where} (${rule.budget.period} per ${rule.scope}) is used up: ${over} spent; it renews at ${resetsAt}`,
        { suggestion: "raise the budget, or wait for the next period" },
      );
    }
  }

  /** Counts a call's tokens (and their cost) against every budget of the caller; resolves once written. */
  async record(caller: BudgetCaller, usage: { inputTokens: number; outputTokens: number }): Promise<void> {
    const budgets = this.budgets.get(caller.agent);
    const counters = this.options.counters;
    if (budgets === undefined || counters === undefined) return;
    const cost = tokenCost({ input: usage.inputTokens, output: usage.outputTokens }, budgets.pricing) ?? 0;
    const spent: BudgetUsage = { tokens: usage.inputTokens + usage.outputTokens, costUsd: cost };
    const now = this.options.clock.now();
    await Promise.all(
      budgets.rules.map(async (rule) => {
        const key = this.key(rule, caller, now);
        await this.usage(key);
        // Read again after the await: another call's tokens may have been counted meanwhile.
        const used = this.cache.get(cacheKey(key)) ?? { tokens: 0, costUsd: 0 };
        this.cache.set(cacheKey(key), { tokens: used.tokens + spent.tokens, costUsd: used.costUsd + spent.costUsd });
        await counters.add(key, spent);
      }),
    );
  }

  /** Every budget with a counter in its current window, for `ps` and `/metrics`. */
  async status(swarm: string): Promise<BudgetStatus[]> {
    const counters = this.options.counters;
    if (counters === undefined) return [];
    const now = this.options.clock.now();
    const limits = new Map<string, BudgetRule>();
    for (const { rules } of this.budgets.values())
      for (const rule of rules) limits.set(`${rule.scope}:${rule.periodMs}`, rule);
    return (await counters.list({ swarm, activeAt: now })).flatMap((counter) => {
      const rule = limits.get(`${counter.scope}:${counter.periodMs}`);
      if (rule === undefined || now < counter.windowStart) return [];
      return [
        {
          ...counter,
          where: rule.where,
          ...(rule.budget.tokens === undefined ? {} : { limitTokens: rule.budget.tokens }),
          ...(rule.budget.costUsd === undefined ? {} : { limitCostUsd: rule.budget.costUsd }),
        },
      ];
    });
  }

  private key(rule: BudgetRule, caller: BudgetCaller, now: number): BudgetCounterKey {
    const subject =
      rule.scope === "swarm" ? "" : rule.scope === "agent" ? caller.agent : `${caller.agent}/${caller.instanceKey}`;
    return {
      swarm: caller.swarm,
      scope: rule.scope,
      subject,
      periodMs: rule.periodMs,
      windowStart: windowStart(now, rule.periodMs),
    };
  }

  private async usage(key: BudgetCounterKey): Promise<BudgetUsage> {
    const cached = this.cache.get(cacheKey(key));
    if (cached !== undefined) return cached;
    const stored = (await this.options.counters?.usage(key)) ?? { tokens: 0, costUsd: 0 };
    // Another call may have filled it while the store answered.
    const again = this.cache.get(cacheKey(key));
    if (again !== undefined) return again;
    this.cache.set(cacheKey(key), stored);
    return stored;
  }
}

const cacheKey = (key: BudgetCounterKey): string =>
  `${key.swarm}\u0000${key.scope}\u0000${key.subject}\u0000${key.periodMs}\u0000${key.windowStart}`;
