/**
 * The defaults SPEC §1 gives to optional fields, in one place: Swarm policy, Tool errorMessageLimit and
 * export parameters, and the list of model providers.
 */
import type { ModelProvider, SwarmPolicy } from "./types.ts";
import type { JsonObject } from "../shared/json.ts";

export const MODEL_PROVIDERS: readonly ModelProvider[] = [
  "anthropic",
  "openai",
  "google",
  "openai-compatible",
  "replay",
];

export const DEFAULT_ERROR_MESSAGE_LIMIT = 1000;

export function defaultParameters(): JsonObject {
  return { type: "object", properties: {} };
}

export function defaultPolicy(): SwarmPolicy {
  return {
    maxStepsPerTurn: 32,
    maxDelegationDepth: 8,
    requestTimeoutMs: 60_000,
    shutdown: { gracePeriodSeconds: 30 },
    restart: { maxConsecutiveCrashes: 5, initialBackoffMs: 1000, maxBackoffMs: 300_000 },
    lifecycle: { idleSeconds: 600, maxInstances: 10_000, heartbeatTimeoutSeconds: 60 },
  };
}
