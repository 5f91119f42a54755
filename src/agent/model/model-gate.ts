/**
 * What stands before each model call when limits apply to it (docs/limits.md): `permit` resolves when the call may
 * go (the Model's pacing, shared with its other processes) and rejects with `E_BUDGET_EXCEEDED` when a budget is
 * used up; `report` tells what a call spent, or that the provider answered 429 (not waited on). The agent child's
 * gate asks the orchestrator (agent/child/model-gate-client.ts); without limits there is no gate and no round trip.
 */
import type { ModelUsageReport } from "../../protocol/model-permit.ts";

export interface ModelGate {
  permit(attempt: number): Promise<void>;
  report(report: ModelUsageReport): void;
}
