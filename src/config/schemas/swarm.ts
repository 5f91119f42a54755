/** The JSON Schema of a Swarm document: entryAgent, agents, instanceKey and policy. */
import { envelope, nonEmptyString, nonNegativeNumber, positiveInteger, ref } from "./common.ts";
import { budgetSchema } from "./limits.ts";

const section = (properties: Record<string, unknown>) => ({ type: "object", additionalProperties: false, properties });

export const swarmSchema = envelope({
  kind: "Swarm",
  description: "A group of agents and the policy that runs them.",
  spec: {
    type: "object",
    required: ["entryAgent", "agents"],
    additionalProperties: false,
    properties: {
      entryAgent: ref("refItem"),
      agents: { type: "array", minItems: 1, items: ref("refItem") },
      instanceKey: nonEmptyString,
      budget: budgetSchema([]),
      policy: section({
        maxStepsPerTurn: positiveInteger,
        maxDelegationDepth: { type: "integer", minimum: 0 },
        requestTimeoutMs: positiveInteger,
        shutdown: section({ gracePeriodSeconds: nonNegativeNumber }),
        restart: section({
          maxConsecutiveCrashes: positiveInteger,
          initialBackoffMs: { type: "integer", minimum: 0 },
          maxBackoffMs: { type: "integer", minimum: 0 },
        }),
        lifecycle: section({
          idleSeconds: nonNegativeNumber,
          maxInstances: positiveInteger,
          maxProcesses: { ...positiveInteger, description: "Older spelling of maxInstances." },
          heartbeatTimeoutSeconds: { type: "number", minimum: 2 },
          ttlSeconds: nonNegativeNumber,
          gcGraceSeconds: nonNegativeNumber,
        }),
        retention: section({
          runtimeEvents: section({
            maxAge: { type: "string", pattern: "^\\s*(\\d+(ms|s|m|h|d))+\\s*$" },
            maxRows: positiveInteger,
          }),
        }),
      }),
    },
  },
});
