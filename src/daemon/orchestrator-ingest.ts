/**
 * The one ConnectorIngest of a running swarm, bound to its orchestrator: a connector child's routed event, or a
 * schedule's tick, is accepted through `ingest` and acknowledged once durable. An event with a stable id (a tick)
 * goes through `submitOnce`, so accepting it again after a restart is answered `duplicate` and runs nothing.
 */
import type { ConnectorIngest } from "../connector/host/connector-run-spec.ts";
import type { Orchestrator } from "../orchestrator/orchestrator.ts";

export function orchestratorIngest(orchestrator: Orchestrator): ConnectorIngest {
  return async (request) => {
    const submit = {
      input: request.input,
      agent: request.agent,
      instanceKey: request.instanceKey,
      type: request.type,
      metadata: request.metadata,
      source: { kind: "connector" as const, name: request.connection },
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    };
    const submitted =
      request.eventId === undefined
        ? { ...orchestrator.ingest({ ...submit, connection: request.connection }), duplicate: false }
        : await orchestrator.submitOnce({ ...submit, eventId: request.eventId });
    await submitted.accepted;
    return {
      eventId: submitted.eventId,
      ...(submitted.duplicate ? { duplicate: true } : {}),
      ...(request.wantsReply ? { reply: submitted.outcome } : {}),
    };
  };
}
