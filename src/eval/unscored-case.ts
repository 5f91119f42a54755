/**
 * The result of a case that was not scored: `error` (it could not run, or its run could not be scored) or
 * `skipped` (the budget was spent first). It holds what the case is and why, with nothing measured: no reply,
 * no calls, no tokens. An error after a run overlays what the run did measure.
 */
import type { ErrorInfo } from "../protocol/error-info.ts";
import type { CaseResult } from "./eval-report.ts";

export interface CaseIdentity {
  id: string;
  eval: string;
  case: string;
  stateRoot: string;
  swarm: string;
  agent: string;
  cassette?: string;
}

export function unscoredCase(options: {
  identity: CaseIdentity;
  status: "error" | "skipped";
  error: ErrorInfo;
  durationMs?: number;
}): CaseResult {
  return {
    ...options.identity,
    instanceKey: "",
    status: options.status,
    score: 0,
    checks: [],
    reply: "",
    replies: [],
    toolCalls: [],
    steps: 0,
    tokens: { input: 0, output: 0 },
    costUsd: 0,
    latencyMs: 0,
    durationMs: options.durationMs ?? 0,
    traceIds: [],
    error: options.error,
  };
}
