/**
 * How NATS failures are read and reported: a conditional write refused because the key or subject moved past the
 * revision we held (the fencing refusal, which is an answer, not a fault), and everything else (timeouts, a lost
 * connection, a server error) as one E_CLUSTER_UNAVAILABLE SystemError naming what was being done, so callers
 * branch on one code and the HTTP layer can answer 503.
 */
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { SystemError } from "../../shared/errors.ts";

/** True when a conditional publish was refused because the last revision was not the one expected. */
export function isWrongRevision(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence ||
      error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

export function natsUnavailable(what: string, error: unknown): SystemError {
  if (error instanceof SystemError) return error;
  return new SystemError(
    "E_CLUSTER_UNAVAILABLE",
    `${what}: the cluster's NATS did not answer: ${(error as Error)?.message ?? String(error)}`,
    {
      suggestion: "Check the NATS server and this node's connection to it; the node retries by itself.",
      cause: error,
    },
  );
}
