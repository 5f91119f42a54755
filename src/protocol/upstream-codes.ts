/**
 * The public Goondan project's spelling of the codes goondan shares with it. goondan spells every error code
 * `E_…` and every warning `W_…`; the public project spells these without the prefix. Where a surface has the public
 * project's shape and is read by code written for it (the `__goondanInterAgentResponse` metadata's `errorCode`),
 * the code goes out in that spelling; everywhere else goondan's own. docs/error-codes.md lists the pairs.
 */
const SHARED = [
  "AGENT_CRASHED",
  "AGENT_ERROR",
  "AGENT_NOT_FOUND",
  "AGENT_REQUEST_FAILED",
  "AGENT_REQUEST_TIMEOUT",
  "AGENT_START_FAILED",
  "AGENT_STEP_FAILED",
  "AGENT_TURN_ABORTED",
  "AGENT_TURN_FAILED",
  "CIRCULAR_CALL_DETECTED",
  "DELEGATION_DEPTH_EXCEEDED",
  "FILE_NOT_FOUND",
  "INSTANCE_DELETED",
  "INSTANCE_NOT_FOUND",
  "KIND_MISSING",
  "MODEL_ABORTED",
  "MODEL_API_KEY_MISSING",
  "MODEL_AUTH_FAILED",
  "MODEL_CALL_FAILED",
  "MODEL_INVALID_RESPONSE",
  "MODEL_NETWORK_ERROR",
  "MODEL_RATE_LIMITED",
  "MODEL_REPLAY_EXHAUSTED",
  "MODEL_REPLAY_MISMATCH",
  "MODEL_REQUEST_REJECTED",
  "MODEL_SERVER_ERROR",
  "MODEL_TIMEOUT",
  "ORCHESTRATOR_STOPPED",
  "ORCHESTRATOR_STOPPING",
  "SWARM_MISSING",
  "TRACE_NOT_FOUND",
] as const;

/** goondan's code → the public project's spelling of it. */
export const UPSTREAM_CODES: ReadonlyMap<string, string> = new Map(
  SHARED.map((code) => [code === "SWARM_MISSING" ? `W_${code}` : `E_${code}`, code]),
);

/** The public project's spelling of `code`, or `code` itself where the two spell it alike or it has none. */
export function upstreamCode(code: string): string {
  return UPSTREAM_CODES.get(code) ?? code;
}
