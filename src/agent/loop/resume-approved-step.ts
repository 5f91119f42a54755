/**
 * Before a turn that stopped for approvals goes on (its event came back with every decision): the calls of its last
 * step that no tool message answers yet are run again, in order, through the toolCall middleware, which now finds
 * each decision (approve → the tool runs; deny / timeout → E_TOOL_DENIED / E_TOOL_APPROVAL_TIMEOUT). A decision is
 * applied once: the decisions are committed as applied BEFORE any call runs, so an approved call whose process died
 * while it ran is answered E_TOOL_INTERRUPTED on the next delivery, never run twice. A later call of the same step
 * that needs another approval stops the turn again.
 */
import { buildCatalog } from "../../tools/tool-catalog.ts";
import type { TurnMiddlewareContext } from "./pipeline-contexts.ts";
import type { StepToolOutcome } from "./turn-result.ts";
import { toolCallsOf } from "../conversation/model-view.ts";
import { createMessage, toolResultData } from "../conversation/message-factory.ts";
import type { Message } from "../../protocol/conversation.ts";
import { interruptedCallResult } from "./recover-interrupted-step.ts";
import { runToolCalls } from "./run-tool-calls.ts";
import type { TurnEnvironment } from "./turn-environment.ts";

export interface ResumeScope {
  env: TurnEnvironment;
  context: TurnMiddlewareContext;
  /** The turn's span, the parent of the calls' spans. */
  spanId: string;
  signal: AbortSignal;
}

/** The last assistant message with tool calls, and those of its calls no later tool message answers. */
export function unansweredCalls(
  messages: readonly Message[],
): { assistant: Message; calls: { toolCallId: string; toolName: string; input: unknown }[] } | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as Message;
    if (message.data.role !== "assistant") continue;
    const calls = toolCallsOf(message);
    if (calls.length === 0) return undefined;
    const answered = new Set<string>();
    for (const later of messages.slice(index + 1)) {
      if (later.data.role !== "tool" || !Array.isArray(later.data.content)) continue;
      for (const part of later.data.content) if (part.type === "tool-result") answered.add(part.toolCallId);
    }
    return { assistant: message, calls: calls.filter((call) => !answered.has(call.toolCallId)) };
  }
  return undefined;
}

export async function resumeApprovedStep(scope: ResumeScope): Promise<void> {
  const { env, context, signal } = scope;
  const approvals = env.approvals;
  const found = approvals === undefined ? undefined : unansweredCalls(env.conversation.messages);
  if (approvals === undefined || found === undefined || found.calls.length === 0) return;
  const { assistant, calls } = found;
  const applying = calls.flatMap((call) => {
    const approval = approvals.approvalOf(call.toolCallId);
    return approval !== undefined && approval.applied !== true ? [approval.id] : [];
  });
  if (applying.length > 0)
    await env.commit({ changes: env.conversation.takeChanges(), approvals: { applied: applying } });
  const catalog = buildCatalog({ registry: env.registry, agentTools: env.agentTools });
  const stepIndex = typeof assistant.metadata.stepIndex === "number" ? assistant.metadata.stepIndex : 0;
  const outcomes: StepToolOutcome[] = [];
  for (const call of calls) {
    if (signal.aborted || approvals.holding) break;
    const approval = approvals.approvalOf(call.toolCallId);
    if (approval?.applied === true && approval.decision?.decision === "approve") {
      outcomes.push({ toolCallId: call.toolCallId, toolName: call.toolName, result: interruptedCallResult(undefined) });
      continue;
    }
    outcomes.push(
      ...(await runToolCalls({
        env,
        turn: context,
        catalog,
        assistant,
        calls: [{ id: call.toolCallId, name: call.toolName, args: call.input }],
        parentSpanId: scope.spanId,
        stepIndex,
        signal,
      })),
    );
  }
  if (outcomes.length === 0 || signal.aborted) return;
  context.emitMessageEvent({
    type: "append",
    message: createMessage({
      id: env.ids("msg"),
      data: toolResultData(outcomes),
      source: { type: "tool" },
      metadata: { turnId: context.turnId, stepIndex, approvalsApplied: applying },
      now: env.now(),
    }),
  });
}
