/**
 * One step of a turn: build the catalog (rebuilt every step from the agent's tools plus dynamic tools) → step
 * middleware (may edit `ctx.toolCatalog` and `ctx.systemPrompt`, add messages, or decide whether the turn
 * continues) → one `generateText` call (system prompt first, the valid model view of the conversation, tools
 * WITHOUT `execute`, each attempt bounded by the model's timeout, retried by callWithRetry) → the assistant
 * message appended → each tool call through `executeToolCall` with the toolCall middlewares (a pending call's
 * completion goes to env.toolCompletions) → the results appended as one tool message. Model failures throw
 * ModelCallError.
 */
import { generateText, jsonSchema, tool, type ModelMessage, type ToolSet } from "ai";
import { compose } from "../../shared/compose.ts";
import type { JsonObject } from "../../shared/json.ts";
import { newSpanId } from "../../shared/ids.ts";
import { buildCatalog } from "../../tools/tool-catalog.ts";
import { executeToolCall } from "../../tools/execute-tool-call.ts";
import type { ToolCatalogItem } from "../../tools/types.ts";
import { validModelView } from "../conversation/model-view.ts";
import type { StepMiddlewareContext, StepResult, StepToolOutcome, TurnMiddlewareContext } from "../extensions/types.ts";
import { assistantData, createMessage, toolResultData } from "../conversation/message-factory.ts";
import { callWithRetry, ModelCallError } from "../model/call-with-retry.ts";
import { DEFAULT_MODEL_TIMEOUT_MS, withModelTimeout } from "../model/model-call-timeout.ts";
import type { TurnEnvironment } from "./turn-environment.ts";

export interface TurnScope {
  context: TurnMiddlewareContext;
  eventId: string;
  turnSpanId: string;
  signal: AbortSignal;
}

export interface RunStepOptions {
  env: TurnEnvironment;
  scope: TurnScope;
  stepIndex: number;
}

function toToolSet(catalog: readonly ToolCatalogItem[]): ToolSet {
  const tools: ToolSet = {};
  for (const item of catalog) {
    tools[item.name] = tool({ ...(item.description === undefined ? {} : { description: item.description }), inputSchema: jsonSchema((item.parameters ?? { type: "object", properties: {} }) as JsonObject) });
  }
  return tools;
}

export async function runStep(options: RunStepOptions): Promise<StepResult> {
  const { env, scope, stepIndex } = options;
  const turn = scope.context;
  const { ids, now } = env;
  const stepSpanId = newSpanId();
  const startedAt = now();
  const base = { traceId: turn.traceId, spanId: stepSpanId, parentSpanId: scope.turnSpanId, turnId: turn.turnId, eventId: scope.eventId, stepIndex };
  env.runtimeEvents.emit({ type: "step.started", ...base });

  const context: StepMiddlewareContext = {
    agentName: turn.agentName,
    instanceKey: turn.instanceKey,
    turnId: turn.turnId,
    traceId: turn.traceId,
    inputEvent: turn.inputEvent,
    get messages() {
      return turn.messages;
    },
    metadata: {},
    // An aborted turn is redelivered: nothing said after the abort may be stored for it to replay.
    emitMessageEvent: (event) => {
      if (!scope.signal.aborted) turn.emitMessageEvent(event);
    },
    agents: turn.agents,
    stepIndex,
    toolCatalog: buildCatalog({ registry: env.registry, agentTools: env.agentTools }),
    systemPrompt: env.systemPrompt,
  };

  const core = async (ctx: StepMiddlewareContext): Promise<StepResult> => {
    const catalog = ctx.toolCatalog;
    const messages: ModelMessage[] = validModelView(turn.messages).messages.map((message) => message.data);
    const response = await callWithRetry({
      call: () =>
        withModelTimeout({
          timeoutMs: env.modelTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
          signal: scope.signal,
          call: (abortSignal) =>
            generateText({
              model: env.model,
              system: ctx.systemPrompt,
              messages,
              ...(catalog.length > 0 ? { tools: toToolSet(catalog) } : {}),
              maxRetries: 0,
              abortSignal,
              ...(env.params.temperature === undefined ? {} : { temperature: env.params.temperature }),
              ...(env.params.topP === undefined ? {} : { topP: env.params.topP }),
              ...(env.params.maxTokens === undefined ? {} : { maxOutputTokens: env.params.maxTokens }),
            }),
        }),
      signal: scope.signal,
      ...(env.retryPolicy === undefined ? {} : { policy: env.retryPolicy }),
      sleep: env.sleep,
      now,
      onRetry: ({ attempt, delayMs, failure }) => {
        env.logger.warn({ attempt, delayMs, code: failure.code }, "model call failed; retrying");
        env.runtimeEvents.emit({ type: "model.retried", ...base, error: { code: failure.code, message: failure.message }, data: { attempt, delayMs } });
      },
    });
    const text = response.text;
    const toolCalls = response.toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: call.input as unknown }));
    const usage = { inputTokens: response.usage.inputTokens ?? 0, outputTokens: response.usage.outputTokens ?? 0 };
    const assistant = createMessage({ id: ids("msg"), data: assistantData(text, toolCalls), source: { type: "assistant", name: turn.agentName }, metadata: { turnId: turn.turnId, stepIndex }, now: now() });
    if ((text.length > 0 || toolCalls.length > 0) && !scope.signal.aborted) turn.emitMessageEvent({ type: "append", message: assistant });

    const toolResults: StepToolOutcome[] = [];
    const toolMiddlewares = env.pipeline.middlewares("toolCall");
    for (const call of toolCalls) {
      if (scope.signal.aborted) break; // it would only be cancelled, and is not stored anyway
      const toolSpanId = newSpanId();
      const toolStartedAt = now();
      env.runtimeEvents.emit({ type: "tool.called", traceId: turn.traceId, spanId: toolSpanId, parentSpanId: stepSpanId, turnId: turn.turnId, stepIndex, toolName: call.name, toolCallId: call.id });
      const result = await executeToolCall({
        call,
        catalog,
        registry: env.registry,
        middlewares: toolMiddlewares,
        context: {
          agentName: turn.agentName,
          instanceKey: turn.instanceKey,
          turnId: turn.turnId,
          message: assistant,
          workdir: env.workdir,
          logger: env.logger.child({ tool: call.name }),
          runtime: env.runtime({ traceId: turn.traceId, parentSpanId: toolSpanId, callChain: turn.inputEvent.callChain }),
          parentSignal: scope.signal,
          ...(env.toolCompletions === undefined ? {} : { onPendingCompletion: env.toolCompletions.listener }),
        },
      });
      const durationMs = now() - toolStartedAt;
      env.runtimeEvents.emit({
        type: result.status === "error" ? "tool.failed" : "tool.completed",
        traceId: turn.traceId,
        spanId: toolSpanId,
        parentSpanId: stepSpanId,
        turnId: turn.turnId,
        stepIndex,
        toolName: call.name,
        toolCallId: call.id,
        durationMs,
        ...(result.status === "error" ? { error: { code: result.error.code, message: result.error.message } } : {}),
      });
      toolResults.push({ toolCallId: call.id, toolName: call.name, result });
    }
    // Aborted (shutdown grace over, orchestrator gone): the results (E_TOOL_CANCELLED for the interrupted call)
    // are not stored, so the redelivered turn finds the tool calls unanswered, drops them and asks the model
    // again, and the tools really run; stored, the model would be shown a cancellation that never happened.
    if (toolResults.length > 0 && !scope.signal.aborted) {
      turn.emitMessageEvent({ type: "append", message: createMessage({ id: ids("msg"), data: toolResultData(toolResults), source: { type: "tool" }, metadata: { turnId: turn.turnId, stepIndex }, now: now() }) });
    }
    return { stepIndex, text, toolCalls, toolResults, finishReason: response.finishReason, usage, continueTurn: toolCalls.length > 0 };
  };

  try {
    const result = await compose(env.pipeline.middlewares("step"), core)(context);
    env.runtimeEvents.emit({ type: "step.completed", ...base, durationMs: now() - startedAt, usage: result.usage, data: { toolCalls: result.toolCalls.length, finishReason: result.finishReason } });
    return result;
  } catch (error) {
    const code = error instanceof ModelCallError ? error.code : "AGENT_STEP_FAILED";
    env.runtimeEvents.emit({ type: "step.failed", ...base, durationMs: now() - startedAt, error: { code, message: error instanceof Error ? error.message : String(error) } });
    throw error;
  }
}
