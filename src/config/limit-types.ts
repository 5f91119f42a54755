/** What the config says about budgets and per-agent resource limits (docs/limits.md). */

/** A period of a budget: a number and a unit (`m`, `h`, `d`), e.g. `1h`, `1d`, `30d`. */
export type BudgetPeriod = string;

/**
 * Tokens and US dollars a budget allows per fixed period (windows aligned to the epoch in UTC), counted for each
 * instance or for the whole agent (`per`, Agent only) or the whole swarm instance (Swarm). docs/limits.md#budgets.
 */
export interface BudgetSpec {
  /** Input + output tokens. */
  tokens?: number;
  /** Needs the Model's prices (`spec.pricing`, or the defaults of src/config/model-prices.ts). */
  costUsd?: number;
  period: BudgetPeriod;
  /** Agent: `instance` (default: each instance its own budget) or `agent` (all its instances together). */
  per?: "instance" | "agent";
}

/** Per-agent resource limits (docs/limits.md#resource-limits). */
export interface AgentLimits {
  /** Memory of the agent's process and everything it starts, in MiB. */
  memoryMb?: number;
  /** CPU share: 1 = one whole core. */
  cpu?: number;
  /** Processes the agent's process and its tools may run at once. */
  maxProcesses?: number;
  openFiles?: number;
  turnSeconds?: number;
  toolCallSeconds?: number;
}
