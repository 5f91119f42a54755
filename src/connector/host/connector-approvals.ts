/**
 * A connector child's `connector_approval`: read one held tool call's approval, or decide it (the `cli`
 * connector's `[y/N]` prompt) and answer with the resumed turn's outcome once it ends, so the person who approved
 * sees the reply. The id and decision come from the child's code and are checked like any input.
 */
import { describe } from "../../shared/errors.ts";
import type { ChildToParent, ParentToChild } from "../../protocol/ipc-messages.ts";
import type { ConnectorApprovals } from "./connector-run-spec.ts";

const REFUSALS: Record<string, string> = {
  missing: "E_APPROVAL_NOT_FOUND",
  already: "E_APPROVAL_DECIDED",
  forbidden: "E_APPROVAL_FORBIDDEN",
};

export async function handleConnectorApproval(options: {
  payload: ChildToParent["connector_approval"];
  approvals: ConnectorApprovals | undefined;
  send: (payload: ParentToChild["connector_approval_result"]) => void;
}): Promise<void> {
  const { payload, approvals, send } = options;
  const { requestId } = payload;
  const fail = (code: string, message: string) => send({ requestId, error: { code, message } });
  if (approvals === undefined) return fail("E_APPROVALS_UNAVAILABLE", "this orchestrator keeps no approvals");
  if (typeof payload.id !== "string" || !/^[A-Za-z0-9_-]{1,200}$/.test(payload.id))
    return fail("E_CONNECTOR_EVENT_INVALID", "expected an approval id");
  try {
    if (payload.decision === undefined) {
      const approval = await approvals.get(payload.id);
      return approval === undefined
        ? fail("E_APPROVAL_NOT_FOUND", `no approval ${payload.id}`)
        : send({ requestId, approval });
    }
    if (payload.decision !== "approve" && payload.decision !== "deny")
      return fail("E_CONNECTOR_EVENT_INVALID", 'expected the decision "approve" or "deny"');
    const reason =
      typeof payload.reason === "string" && payload.reason !== "" ? payload.reason.slice(0, 1000) : undefined;
    const decided = await approvals.decide({
      id: payload.id,
      decision: payload.decision,
      ...(reason === undefined ? {} : { reason }),
    });
    if (decided.type !== "decided" || decided.approval === undefined)
      return fail(REFUSALS[decided.type] ?? "E_APPROVAL_DECIDED", `approval ${payload.id}: ${decided.type}`);
    const outcome = decided.outcome === undefined ? undefined : await decided.outcome;
    send({ requestId, approval: decided.approval, ...(outcome === undefined ? {} : { outcome }) });
  } catch (error) {
    fail(describe(error).code ?? "E_APPROVAL_FAILED", describe(error).message);
  }
}
