/** The `approval.decided` runtime event of a decided approval (its decision, reason and who decided). */
import { newSpanId } from "../../shared/ids.ts";
import type { Approval } from "../../protocol/approval.ts";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";

export function decidedEvent(approval: Approval, now: number): RuntimeEvent {
  const decision = approval.decision;
  return {
    type: "approval.decided",
    at: new Date(now).toISOString(),
    agent: approval.agent,
    instanceKey: approval.instanceKey,
    traceId: approval.traceId,
    spanId: newSpanId(),
    turnId: approval.turnId,
    eventId: approval.eventId,
    toolName: approval.toolName,
    toolCallId: approval.toolCallId,
    data: {
      approvalId: approval.id,
      decision: decision?.decision ?? "",
      ...(decision?.reason === undefined ? {} : { reason: decision.reason }),
      ...(decision?.decidedBy === undefined ? {} : { decidedBy: decision.decidedBy }),
    },
  };
}
