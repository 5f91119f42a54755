/** A test builder for an AgentEvent: a user's input to agent `a`, instance `k`, with the fields a test sets. */
import type { AgentEvent } from "../../src/protocol/agent-event.ts";

export function agentEvent(id: string, fields: Partial<AgentEvent> = {}): AgentEvent {
  return {
    id,
    type: "user.input",
    input: `input of ${id}`,
    agent: "a",
    instanceKey: "k",
    source: { kind: "api", name: "api" },
    traceId: "t",
    callChain: [],
    metadata: {},
    createdAt: "2026-11-23T00:00:00.000Z",
    ...fields,
  };
}
