/**
 * What an agent child and the orchestrator's permit broker say to each other around each model call
 * (docs/limits.md): before an attempt the child asks for a permit (`model_permit`, a `runtime_call` answered once
 * the Model's pacing lets the call go, or refused with `E_BUDGET_EXCEEDED`); after it, the child reports what it
 * spent, or that the provider answered 429 (`model_usage`, a `runtime_call` the child does not wait for). The broker
 * knows which instance asks from the channel, and the Model from the bundle.
 */

/** `model_permit` args: nothing but the attempt's number (1 = first), for logs. */
export interface ModelPermitArgs {
  attempt: number;
}

/** `model_permit` answer: how long the call was held for pacing (ms). */
export interface ModelPermitGrant {
  waitedMs: number;
}

/** `model_usage` args: the tokens one call spent, or the provider's 429 and its Retry-After (ms). */
export interface ModelUsageReport {
  inputTokens?: number;
  outputTokens?: number;
  throttledMs?: number;
}

export const BUDGET_EXCEEDED = "E_BUDGET_EXCEEDED";
