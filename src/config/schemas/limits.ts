/**
 * The JSON Schema pieces of docs/limits.md: a budget (Agent and Swarm `spec.budget`), a Model's provider pacing
 * (`spec.rateLimit`) and an Agent's resource limits (`spec.limits`).
 */
import type { JsonSchema } from "./common.ts";

const positiveNumber: JsonSchema = { type: "number", exclusiveMinimum: 0 };
const positiveInteger: JsonSchema = { type: "integer", minimum: 1 };

/** `1h`, `30m`, `1d`, `30d`: a number and a unit (minutes, hours, days). */
export const BUDGET_PERIOD_PATTERN = "^[1-9][0-9]*[mhd]$";

export const budgetSchema = (per: readonly string[]): JsonSchema => ({
  type: "object",
  description:
    "Tokens and/or US dollars allowed per period (fixed UTC windows); a model call past it ends the turn with E_BUDGET_EXCEEDED.",
  required: ["period"],
  additionalProperties: false,
  properties: {
    tokens: { ...positiveInteger, description: "Input + output tokens per period." },
    costUsd: { ...positiveNumber, description: "US dollars per period, at the Model's prices." },
    period: { type: "string", pattern: BUDGET_PERIOD_PATTERN, description: "`30m`, `1h`, `1d`, `30d`, …" },
    ...(per.length > 0 ? { per: { enum: [...per], description: "What one counter covers." } } : {}),
  },
});

export const rateLimitSchema: JsonSchema = {
  type: "object",
  description: "Provider pacing shared by every process of this Model.",
  additionalProperties: false,
  properties: { requestsPerMinute: positiveNumber, tokensPerMinute: positiveInteger },
};

export const agentLimitsSchema: JsonSchema = {
  type: "object",
  description:
    "Resources of the agent's process (cgroup v2 where writable, else rlimits) and wall time per turn and tool call.",
  additionalProperties: false,
  properties: {
    memoryMb: { ...positiveInteger, description: "MiB of the agent's process and everything it starts." },
    cpu: { ...positiveNumber, description: "CPU share; 1 = one core." },
    maxProcesses: positiveInteger,
    openFiles: positiveInteger,
    turnSeconds: positiveNumber,
    toolCallSeconds: positiveNumber,
  },
};
