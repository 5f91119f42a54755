/**
 * Before a redelivered event's turn resumes, its conversation may end in the step the process died in: an
 * assistant message whose tool calls have no results (they are stored together when the step's tools end).
 * - After a crash (`crashedBefore`: the child was killed by a signal, exited, or was killed as unresponsive),
 *   each of those calls is answered with `E_TOOL_INTERRUPTED` saying how the process died. The model learns
 *   that a call may have taken the agent down, and does not walk into the same crash again and again until the
 *   event is given up on; nothing is re-run behind its back.
 * - After a clean stop (the shutdown grace period cut the step short), or for unanswered calls anywhere else,
 *   the unanswered assistant message is removed and the model is asked again (conversation/model-view.ts): the
 *   tools were stopped by us, not by their own fault, so the model may simply run them again.
 */
import { TOOL_ERROR_CODES, toolError } from "../../tools/tool-errors.ts";
import { toolCallsOf, validModelView } from "../conversation/model-view.ts";
import type { TurnMiddlewareContext } from "../extensions/types.ts";
import { createMessage, toolResultData } from "../conversation/message-factory.ts";
import type { TurnEnvironment } from "./turn-environment.ts";

export interface RecoveryScope {
  env: TurnEnvironment;
  context: TurnMiddlewareContext;
  /** How the process died with this event in flight the last time, when it did. */
  crashedBefore?: string;
  /** Trace fields of the turn, for the `conversation.recovered` runtime event. */
  spans: { traceId: string; spanId: string; turnId: string; eventId: string; parentSpanId?: string };
}

function interruptedCallResult(crashedBefore: string) {
  return toolError({
    code: TOOL_ERROR_CODES.interrupted,
    message: `The agent process died while this step's tool calls were running (${crashedBefore}). Whether this call did nothing, part of its work or all of it is unknown; it was not run again.`,
    suggestion: "Check its effects before calling it again. If this tool caused the crash, the same call will crash the agent again: try other arguments or another tool.",
  });
}

export function recoverInterruptedStep(scope: RecoveryScope): void {
  const { env, context, crashedBefore, spans } = scope;
  const last = env.store.messages.at(-1);
  const calls = last === undefined ? [] : toolCallsOf(last);
  if (crashedBefore !== undefined && calls.length > 0) {
    const now = env.now();
    const result = interruptedCallResult(crashedBefore);
    const data = toolResultData(calls.map((call) => ({ ...call, result })));
    context.emitMessageEvent({ type: "append", message: createMessage({ id: env.ids("msg"), data, source: { type: "tool" }, metadata: { turnId: context.turnId, interrupted: true }, now }) });
    env.logger.warn({ calls: calls.map((call) => call.toolName), crashedBefore }, "answered the tool calls a crash interrupted with E_TOOL_INTERRUPTED");
    env.runtimeEvents.emit({ type: "conversation.recovered", ...spans, data: { interruptedCalls: calls.map((call) => call.toolCallId), crashedBefore } });
  }
  const dropped = validModelView(env.store.messages).dropped;
  if (dropped.length === 0) return;
  for (const id of dropped) context.emitMessageEvent({ type: "remove", targetId: id });
  env.logger.warn({ dropped: dropped.length }, "removed tool-call messages left without results by an interrupted turn");
  env.runtimeEvents.emit({ type: "conversation.recovered", ...spans, data: { removedMessages: dropped } });
}
