/**
 * The results an instance holds for its model (replies to earlier async requests, completions of pending tool calls),
 * shown as messages before a step: each names what it answers, a reply also as `__goondanInterAgentResponse`
 * metadata in the public Goondan shape (its `errorCode` in the public project's spelling), for extensions.
 */
import { upstreamCode } from "../../protocol/upstream-codes.ts";
import type { JsonObject } from "../../shared/json.ts";
import { createMessage } from "../conversation/message-factory.ts";
import {
  isToolCompletion,
  pendingResultId,
  type DelegateResult,
  type PendingResult,
} from "../conversation/pending-results.ts";
import type { TurnMiddlewareContext } from "./pipeline-contexts.ts";
import type { TurnEnvironment } from "./turn-environment.ts";

/**
 * Shows the results waiting for the model as messages. Each is removed from the pending results as it is shown, and
 * the removal is committed in the same transaction as the message, so a result is shown exactly once.
 */
export function deliverPendingResults(env: TurnEnvironment, context: TurnMiddlewareContext): void {
  const pending = env.pendingResults;
  if (pending.list().length === 0) return;
  const { now, ids } = env;
  const delivered: string[] = [];
  for (const item of pending.list()) {
    const id = pendingResultId(item);
    delivered.push(id);
    const shownAs = pendingResultMessage(item);
    const described: JsonObject = isToolCompletion(item)
      ? {}
      : { [INTER_AGENT_RESPONSE_KEY]: interAgentResponse(item, env.agentName, now()) };
    context.emitMessageEvent({
      type: "append",
      message: createMessage({
        id: ids("msg"),
        data: { role: "user", content: shownAs.text },
        source: { type: "system", name: shownAs.source },
        metadata: { [shownAs.idKey]: id, turnId: context.turnId, ...described },
        now: now(),
      }),
    });
  }
  pending.remove(delivered);
}

/** Where an async reply's message says, as data, what it answers (the public Goondan metadata key). */
export const INTER_AGENT_RESPONSE_KEY = "__goondanInterAgentResponse";

function interAgentResponse(item: DelegateResult, self: string, at: number): JsonObject {
  const status = item.status === "ok" ? "ok" : item.error?.code === "E_AGENT_REQUEST_TIMEOUT" ? "timeout" : "error";
  return {
    kind: "inter_agent_response",
    version: 1,
    requestId: item.correlationId,
    fromAgentId: item.agent,
    fromInstanceKey: item.instanceKey,
    toAgentId: self,
    async: true,
    status,
    receivedAt: new Date(at).toISOString(),
    ...(item.error === undefined ? {} : { errorCode: upstreamCode(item.error.code), errorMessage: item.error.message }),
  };
}

/** How an arrived outcome reads to the model: a header line naming what it answers, then the outcome. */
function pendingResultMessage(item: PendingResult): { text: string; source: string; idKey: string } {
  if (isToolCompletion(item)) {
    const text = `[completion of pending tool call ${item.toolName} (call ${item.toolCallId}, handle ${item.handle}), status ${item.result.status}]\n${JSON.stringify(item.result)}`;
    return { text, source: "tool_completion", idKey: "toolCompletionId" };
  }
  const body =
    item.status === "ok"
      ? (item.response ?? "")
      : `error ${item.error?.code ?? "E_AGENT_ERROR"}: ${item.error?.message ?? ""}`;
  const text = `[async reply from agent ${item.agent}/${item.instanceKey} to request ${item.correlationId}, status ${item.status}]\n${body}`;
  return { text, source: "delegate_result", idKey: "delegateCorrelationId" };
}
