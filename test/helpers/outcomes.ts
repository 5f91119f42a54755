/** Test builders for the one outcome type: a TurnOutcome or a Reply with defaults for the fields a test does not care about. */
import type { Reply, TurnOutcome } from "../../src/protocol/turn-outcome.ts";

export function outcome(fields: Partial<TurnOutcome> = {}): TurnOutcome {
  return {
    status: "ok",
    agent: "agent",
    instanceKey: "main",
    eventId: "evt_1",
    turnId: "turn_1",
    response: "",
    finishReason: "stop",
    ...fields,
  };
}

export function reply(fields: Partial<Reply> & { correlationId: string }): Reply {
  return { ...outcome(fields), correlationId: fields.correlationId };
}
