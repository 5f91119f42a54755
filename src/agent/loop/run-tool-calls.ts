/**
 * Runs the tool calls of one assistant message, in order, each through `executeToolCall` with the toolCall middlewares
 * (a pending call's completion goes to env.toolCompletions), with a `tool.called` (its `data.args`) and a
 * `tool.completed` / `tool.failed` (its `data.result`) runtime event each, which the sink redacts and bounds. Each
 * call's `ctx.runtime` carries the call's trace, its span and a stable key (event id and tool call id), so a request it
 * makes keeps its identity if the call is run again after a restart. Stops at an aborted turn: a call that would only
 * be cancelled is not started. Stops too after a call the toolCall middleware held for approval (tool-approvals.ts),
 * or that suspended itself for a time or a signal (`ctx.suspend`, held the same way): that call gets no result (an
 * `approval.requested` event instead), and the calls after it run only once the turn resumes, when the suspended call
 * runs again with `ctx.wakeUp`.
 */
import { newSpanId } from "../../shared/ids.ts";
import type { Message } from "../../protocol/conversation.ts";
import type { JsonValue } from "../../shared/json.ts";
import { executeToolCall } from "../../tools/execute-tool-call.ts";
import type { ToolCall, ToolCatalogItem, ToolContext } from "../../tools/types.ts";
import { signalApprover, TIMER_APPROVER, wakeUpOf, type SuspendRequest } from "../../protocol/suspension.ts";
import type { TurnMiddlewareContext } from "./pipeline-contexts.ts";
import type { StepToolOutcome } from "./turn-result.ts";
import type { TurnEnvironment } from "./turn-environment.ts";

export interface RunToolCallsOptions {
  env: TurnEnvironment;
  turn: TurnMiddlewareContext;
  catalog: readonly ToolCatalogItem[];
  /** The assistant message holding the calls (`ctx.message`). */
  assistant: Message;
  calls: readonly ToolCall[];
  /** The span the tool spans hang under (the step's). */
  parentSpanId: string;
  stepIndex: number;
  signal: AbortSignal;
}

/**
 * A call's way to suspend its turn (`ctx.suspend`: held like an approval, decided by its time or its signal rather
 * than a person) and, when it runs again after one, how it was woken (`ctx.wakeUp`).
 */
function suspensionOf(env: TurnEnvironment, call: ToolCall): Pick<ToolContext, "suspend" | "wakeUp"> {
  const approvals = env.approvals;
  if (approvals === undefined) return {};
  const decided = approvals.approvalOf(call.id);
  const wakeUp = decided === undefined ? undefined : wakeUpOf(decided);
  return {
    suspend: (request: SuspendRequest) =>
      approvals.hold({
        toolCallId: call.id,
        toolName: call.name,
        args: {
          until: new Date(request.until).toISOString(),
          ...(request.signal === undefined ? {} : { signal: request.signal }),
        },
        timeoutSeconds: Math.max(0, request.until - env.now()) / 1000,
        approvers: [request.signal === undefined ? TIMER_APPROVER : signalApprover(request.signal)],
      }),
    ...(wakeUp === undefined ? {} : { wakeUp }),
  };
}

export async function runToolCalls(options: RunToolCallsOptions): Promise<StepToolOutcome[]> {
  const { env, turn, signal } = options;
  const outcomes: StepToolOutcome[] = [];
  const middlewares = env.pipeline.middlewares("toolCall");
  for (const call of options.calls) {
    if (signal.aborted) break;
    const spanId = newSpanId();
    const startedAt = env.now();
    const spans = {
      traceId: turn.traceId,
      spanId,
      parentSpanId: options.parentSpanId,
      turnId: turn.turnId,
      stepIndex: options.stepIndex,
      toolName: call.name,
      toolCallId: call.id,
    };
    env.runtimeEvents.emit({ type: "tool.called", ...spans, data: { args: (call.args ?? {}) as JsonValue } });
    const suspension = suspensionOf(env, call);
    const result = await executeToolCall({
      call,
      catalog: options.catalog,
      registry: env.registry,
      middlewares,
      context: {
        agentName: turn.agentName,
        instanceKey: turn.instanceKey,
        turnId: turn.turnId,
        message: options.assistant,
        // Read (and the directory made) only when the tool reads it: run-handler.ts keeps the getter.
        get workdir() {
          return env.workdir;
        },
        logger: env.logger.child({ tool: call.name }),
        runtime: env.runtime({
          traceId: turn.traceId,
          parentSpanId: spanId,
          callChain: turn.inputEvent.callChain,
          callKey: `${turn.inputEvent.id}:${call.id}`,
        }),
        parentSignal: signal,
        ...(env.toolCompletions === undefined ? {} : { onPendingCompletion: env.toolCompletions.listener }),
        ...suspension,
      },
    });
    const held = env.approvals?.heldFor(call.id);
    if (held !== undefined) {
      env.runtimeEvents.emit({
        type: "approval.requested",
        ...spans,
        data: {
          approvalId: held.id,
          eventId: held.eventId,
          arguments: held.arguments,
          ...(held.expiresAt === undefined ? {} : { expiresAt: new Date(held.expiresAt).toISOString() }),
        },
      });
      break;
    }
    env.runtimeEvents.emit({
      type: result.status === "error" ? "tool.failed" : "tool.completed",
      ...spans,
      durationMs: env.now() - startedAt,
      ...(result.status === "error" ? { error: { code: result.error.code, message: result.error.message } } : {}),
      data: { result: result as unknown as JsonValue },
    });
    outcomes.push({ toolCallId: call.id, toolName: call.name, result });
  }
  return outcomes;
}
