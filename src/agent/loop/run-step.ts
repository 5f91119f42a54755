/**
 * One step of a turn: build the catalog (rebuilt every step from the agent's tools plus dynamic tools) → step
 * middleware (may edit `ctx.toolCatalog` and `ctx.systemPrompt`, add messages, or decide whether the turn
 * continues) → one model call (generate-step.ts, on the prompt kept converted by model-prompt.ts; its own span, with
 * `model.completed`/`model.failed`) → the assistant message appended → when it calls tools, everything
 * so far committed BEFORE any of them runs (a tool call whose start is recorded never runs again behind the model's
 * back) → the calls run (run-tool-calls.ts) → their results appended as one tool message, committed with the next
 * step or the turn's end. Model failures throw ModelCallError.
 */
import { compose } from "../../shared/compose.ts";
import { UsageError } from "../../shared/errors.ts";
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import { newSpanId } from "../../shared/ids.ts";
import { buildCatalog } from "../../tools/tool-catalog.ts";
import type { StepMiddlewareContext, TurnMiddlewareContext } from "./pipeline-contexts.ts";
import type { StepResult } from "./turn-result.ts";
import { assistantData, createMessage, toolResultData } from "../conversation/message-factory.ts";
import { ModelCallError } from "../model/call-with-retry.ts";
import { isLimitError } from "./limit-error.ts";
import { generateStep, type GeneratedStep } from "../model/generate-step.ts";
import type { ToolCatalogItem } from "../../tools/types.ts";
import { runToolCalls } from "./run-tool-calls.ts";
import type { TurnEnvironment } from "./turn-environment.ts";

export interface TurnScope {
  context: TurnMiddlewareContext;
  eventId: string;
  turnSpanId: string;
  signal: AbortSignal;
  /** Epoch ms the turn started (Agent `spec.limits.turnSeconds` counts from it). */
  startedAt?: number;
}

/** The trace fields of a step's runtime events. */
interface StepSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  turnId: string;
  eventId: string;
  stepIndex: number;
}

export interface RunStepOptions {
  env: TurnEnvironment;
  scope: TurnScope;
  stepIndex: number;
}

export async function runStep(options: RunStepOptions): Promise<StepResult> {
  const { env, scope, stepIndex } = options;
  const turn = scope.context;
  const { ids, now } = env;
  const stepSpanId = newSpanId();
  const startedAt = now();
  const base: StepSpan = {
    traceId: turn.traceId,
    spanId: stepSpanId,
    parentSpanId: scope.turnSpanId,
    turnId: turn.turnId,
    eventId: scope.eventId,
    stepIndex,
  };
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
    conversationState: turn.conversationState,
    conversation: turn.conversation,
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
    checkTurnTime(env, scope);
    const catalog = ctx.toolCatalog;
    const response = await callModel({ env, scope, base, system: ctx.systemPrompt, catalog });
    const { text, toolCalls, usage } = response;
    const assistant = createMessage({
      id: ids("msg"),
      data: assistantData(text, toolCalls),
      source: { type: "assistant", name: turn.agentName },
      metadata: { turnId: turn.turnId, stepIndex },
      now: now(),
    });
    if ((text.length > 0 || toolCalls.length > 0) && !scope.signal.aborted)
      turn.emitMessageEvent({ type: "append", message: assistant });
    let stored: Promise<void> | undefined;
    if (toolCalls.length > 0 && !scope.signal.aborted) {
      // Calls that only ask the orchestrator (the built-in `agents` tool) need the step applied, not on disk: their
      // requests are written after it in the same ordered log (CommitOptions), and a step the store refused has them
      // refused too. So do idempotent calls: after a crash that lost the record, running them again does nothing
      // more. Such a step's calls start at once, without waiting for the commit's answer; a refusal still ends the
      // turn unsaved once they are done. Any other step's calls wait until the step is on disk.
      const unsynced = toolCalls.every((call) => {
        const entry = env.registry.get(call.name);
        return entry?.resumable === true || entry?.idempotent === true;
      });
      stored = env.commit(
        { changes: env.conversation.takeChanges(), consumed: env.pendingResults.takeConsumed() },
        unsynced ? { sync: false } : {},
      );
      if (unsynced) stored.catch(() => undefined);
      else await stored;
    }
    const toolResults = await runToolCalls({
      env,
      turn,
      catalog,
      assistant,
      calls: toolCalls,
      parentSpanId: stepSpanId,
      stepIndex,
      signal: scope.signal,
    });
    await stored;
    // Aborted (shutdown grace over, orchestrator gone): nothing more is stored; the redelivered turn finds these
    // calls unanswered and tells the model they were interrupted.
    if (toolResults.length > 0 && !scope.signal.aborted) {
      turn.emitMessageEvent({
        type: "append",
        message: createMessage({
          id: ids("msg"),
          data: toolResultData(toolResults),
          source: { type: "tool" },
          metadata: { turnId: turn.turnId, stepIndex },
          now: now(),
        }),
      });
    }
    return {
      stepIndex,
      text,
      toolCalls,
      toolResults,
      finishReason: response.finishReason,
      usage,
      continueTurn: toolCalls.length > 0,
    };
  };

  try {
    const result = await compose(env.pipeline.middlewares("step"), core)(context);
    env.runtimeEvents.emit({
      type: "step.completed",
      ...base,
      durationMs: now() - startedAt,
      usage: result.usage,
      data: { toolCalls: result.toolCalls.length, finishReason: result.finishReason },
    });
    return result;
  } catch (error) {
    const code = error instanceof ModelCallError || isLimitError(error) ? error.code : "E_AGENT_STEP_FAILED";
    env.runtimeEvents.emit({
      type: "step.failed",
      ...base,
      durationMs: now() - startedAt,
      error: { code, message: error instanceof Error ? error.message : String(error) },
    });
    throw error;
  }
}

/** Agent `spec.limits.turnSeconds`: a turn past it makes no further model call (UsageError `E_LIMIT_TURN_TIME`). */
function checkTurnTime(env: TurnEnvironment, scope: TurnScope): void {
  const limitMs = env.turnTimeLimitMs;
  if (limitMs === undefined || scope.startedAt === undefined) return;
  const elapsed = env.now() - scope.startedAt;
  if (elapsed > limitMs)
    throw new UsageError(
      "E_LIMIT_TURN_TIME",
      `the turn ran ${Math.round(elapsed / 1000)} s, over spec.limits.turnSeconds (${limitMs / 1000}); no further model call`,
    );
}

/** The step's model call, as a span of its own under the step's (`model.completed` / `model.failed`). */
async function callModel(options: {
  env: TurnEnvironment;
  scope: TurnScope;
  base: StepSpan;
  system: string;
  catalog: readonly ToolCatalogItem[];
}): Promise<GeneratedStep> {
  const { env, scope, base } = options;
  const span = { ...base, spanId: newSpanId(), parentSpanId: base.spanId };
  const about = { provider: env.model.provider, model: env.model.modelId, streamed: env.streaming };
  const startedAt = env.now();
  try {
    const prompt = await env.prompt.build({
      system: options.system,
      conversation: env.conversation,
      signal: scope.signal,
    });
    const step = await generateStep({
      model: env.model,
      streaming: env.streaming,
      params: env.params,
      prompt,
      catalog: options.catalog,
      signal: scope.signal,
      ...(env.modelTimeoutMs === undefined ? {} : { timeoutMs: env.modelTimeoutMs }),
      ...(env.retryPolicy === undefined ? {} : { retryPolicy: env.retryPolicy }),
      sleep: env.sleep,
      now: env.now,
      ...(env.stream === undefined ? {} : { stream: env.stream }),
      ...(env.modelGate === undefined ? {} : { gate: env.modelGate }),
      onRetry: ({ attempt, delayMs, failure }) => {
        env.logger.warn({ attempt, delayMs, code: failure.code }, "model call failed; retrying");
        env.runtimeEvents.emit({
          type: "model.retried",
          ...span,
          error: { code: failure.code, message: failure.message },
          data: { attempt, delayMs },
        });
      },
    });
    const timing: { timeToFirstTokenMs?: number } =
      step.timeToFirstTokenMs === undefined ? {} : { timeToFirstTokenMs: step.timeToFirstTokenMs };
    env.runtimeEvents.emit({
      type: "model.completed",
      ...span,
      durationMs: env.now() - startedAt,
      usage: step.usage,
      data: {
        ...about,
        finishReason: step.finishReason,
        ...timing,
        // What the span shows: how many messages went in and the newest, and what came out (bounded by the sink).
        input: { messages: prompt.length, last: (prompt.at(-1) ?? null) as unknown as JsonValue },
        output: {
          text: step.text,
          toolCalls: step.toolCalls.map(({ id, name, args }) => ({ id, name, args })),
        } as JsonObject,
      },
    });
    return step;
  } catch (error) {
    const code = error instanceof ModelCallError || isLimitError(error) ? error.code : "E_AGENT_STEP_FAILED";
    env.runtimeEvents.emit({
      type: "model.failed",
      ...span,
      durationMs: env.now() - startedAt,
      error: { code, message: error instanceof Error ? error.message : String(error) },
      data: about,
    });
    throw error;
  }
}
