/**
 * The agent child's ModelGate (agent/model/model-gate.ts): a `model_permit` runtime call before each model attempt,
 * answered by the orchestrator's permit broker once the Model's pacing lets it go (or refused with
 * `E_BUDGET_EXCEEDED`), and a `model_usage` call after it that nothing waits on. IPC keeps the order, so a call's
 * usage is counted before the next permit is decided.
 */
import type { ModelPermitArgs, ModelUsageReport } from "../../protocol/model-permit.ts";
import type { JsonObject } from "../../shared/json.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ModelGate } from "../model/model-gate.ts";
import type { RuntimeClient } from "./runtime-client.ts";

export function modelGateClient(options: { runtime: RuntimeClient; logger: Logger }): ModelGate {
  const context = { callChain: [] };
  return {
    permit: async (attempt) => {
      const args: ModelPermitArgs = { attempt };
      await options.runtime.call("model_permit", args as unknown as JsonObject, context);
    },
    report: (report: ModelUsageReport) => {
      options.runtime
        .call("model_usage", report as JsonObject, context)
        .catch((error: unknown) => options.logger.warn({ err: error }, "could not report a model call's usage"));
    },
  };
}
