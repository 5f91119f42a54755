/**
 * Before a redelivered event's turn resumes, its conversation may end in a step whose tool calls were recorded
 * (committed before they ran) but whose results were not: the child crashed, was killed as unresponsive, was
 * stopped when its grace period ended, or goondan itself stopped. A call whose start is recorded never runs again
 * behind the model's back:
 * - a resumable call (the built-in `agents` tool, whose requests the orchestrator knows by the call's id) runs again
 *   with the same id and reattaches to its request instead of sending a new one;
 * - every other call is answered with `E_TOOL_INTERRUPTED`, saying how the process died when it is known, so the
 *   model decides whether to run it again (and a tool that crashes the agent is not walked into again blindly).
 * Only a redelivery can find such a step, so only a redelivery pays for this look (and for dropping any message the
 * model could not be shown, conversation/model-view.ts).
 */
import { buildCatalog } from "../../tools/tool-catalog.ts";
import { TOOL_ERROR_CODES, toolError } from "../../tools/tool-errors.ts";
import type { TurnMiddlewareContext } from "./pipeline-contexts.ts";
import type { StepToolOutcome } from "./turn-result.ts";
import { toolCallsOf, validModelView } from "../conversation/model-view.ts";
import { createMessage, toolResultData } from "../conversation/message-factory.ts";
import { runToolCalls } from "./run-tool-calls.ts";
import type { TurnEnvironment } from "./turn-environment.ts";

export interface RecoveryScope {
  env: TurnEnvironment;
  context: TurnMiddlewareContext;
  /** How the process died with this event in flight the last time, when it did. */
  crashedBefore?: string;
  /** Trace fields of the turn, for the `conversation.recovered` runtime event. */
  spans: { traceId: string; spanId: string; turnId: string; eventId: string; parentSpanId?: string };
  signal: AbortSignal;
}

/** E_TOOL_INTERRUPTED for a call whose start is recorded and whose result is not. */
export function interruptedCallResult(crashedBefore: string | undefined) {
  const how =
    crashedBefore === undefined
      ? "the agent stopped before its result was saved (a shutdown, or goondan itself restarted)"
      : `the agent process died while it ran (${crashedBefore})`;
  return toolError({
    code: TOOL_ERROR_CODES.interrupted,
    message: `This call was interrupted: ${how}. Whether it did nothing, part of its work or all of it is unknown; it was not run again.`,
    suggestion:
      "Check its effects before calling it again. If this tool caused a crash, the same call will crash the agent again: try other arguments or another tool.",
  });
}

export async function recoverInterruptedStep(scope: RecoveryScope): Promise<void> {
  const { env, context, crashedBefore, spans } = scope;
  const last = env.conversation.messages.at(-1);
  const calls = last === undefined ? [] : toolCallsOf(last);
  if (last !== undefined && calls.length > 0) {
    const catalog = buildCatalog({ registry: env.registry, agentTools: env.agentTools });
    const stepIndex = typeof last.metadata.stepIndex === "number" ? last.metadata.stepIndex : 0;
    const outcomes: StepToolOutcome[] = [];
    for (const call of calls) {
      if (env.registry.get(call.toolName)?.resumable === true) {
        outcomes.push(
          ...(await runToolCalls({
            env,
            turn: context,
            catalog,
            assistant: last,
            calls: [{ id: call.toolCallId, name: call.toolName, args: call.input }],
            parentSpanId: spans.spanId,
            stepIndex,
            signal: scope.signal,
          })),
        );
      } else {
        outcomes.push({
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          result: interruptedCallResult(crashedBefore),
        });
      }
    }
    if (scope.signal.aborted) return;
    context.emitMessageEvent({
      type: "append",
      message: createMessage({
        id: env.ids("msg"),
        data: toolResultData(outcomes),
        source: { type: "tool" },
        metadata: { turnId: context.turnId, interrupted: true },
        now: env.now(),
      }),
    });
    const resumed = calls
      .filter((call) => env.registry.get(call.toolName)?.resumable === true)
      .map((call) => call.toolCallId);
    env.logger.warn(
      { calls: calls.map((call) => call.toolName), resumed, crashedBefore },
      "answered the tool calls of an interrupted step",
    );
    env.runtimeEvents.emit({
      type: "conversation.recovered",
      ...spans,
      data: {
        interruptedCalls: calls.map((call) => call.toolCallId),
        resumedCalls: resumed,
        ...(crashedBefore === undefined ? {} : { crashedBefore }),
      },
    });
  }
  const dropped = validModelView(env.conversation.messages).dropped;
  if (dropped.length === 0) return;
  for (const id of dropped) context.emitMessageEvent({ type: "remove", targetId: id });
  env.logger.warn({ dropped: dropped.length }, "removed messages the model could not be shown");
  env.runtimeEvents.emit({ type: "conversation.recovered", ...spans, data: { removedMessages: dropped } });
}
