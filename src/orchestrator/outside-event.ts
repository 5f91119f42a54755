/**
 * The event a submit from outside the swarm becomes (`Orchestrator.submit`/`ingest`: the HTTP API, a connector, the
 * terminal): a new id and trace, no call chain, `user.input` unless the caller names its type.
 */
import type { AgentEvent } from "../protocol/agent-event.ts";
import { newTraceId } from "../shared/ids.ts";
import type { SubmitOptions } from "./orchestrator-options.ts";

export function outsideEvent(options: {
  submit: SubmitOptions;
  id: string;
  agent: string;
  instanceKey: string;
  now: number;
}): AgentEvent {
  const { submit } = options;
  return {
    id: options.id,
    type: submit.type ?? "user.input",
    input: submit.input,
    agent: options.agent,
    instanceKey: options.instanceKey,
    source: submit.source ?? { kind: "api", name: "api" },
    traceId: submit.traceId ?? newTraceId(),
    callChain: [],
    metadata: submit.metadata ?? {},
    createdAt: new Date(options.now).toISOString(),
  };
}
