/**
 * The one turn loop: inbound AgentEvent → user message → steps until the model answers without tool calls (or
 * step middleware stops asking for more), or `maxStepsPerTurn` (then `finishReason: "max_steps"` with the last
 * text). Turn middleware wraps the whole loop through the same `compose()`. Before each step, replies to
 * earlier async requests and completions of pending tool calls are shown to the model as messages (a
 * `results.arrived` event, which wakes an idle instance for them, adds no user message; a reply's message also
 * says what it answers as `__goondanInterAgentResponse` metadata, for extensions). A redelivered event
 * whose user message is already in the conversation resumes (no second user message); tool calls left
 * unanswered by the previous attempt are answered with E_TOOL_INTERRUPTED (it crashed) or removed (it was
 * stopped) first (recover-interrupted-step.ts). A tool call held for a person's approval ends the turn
 * `awaiting_approval`; the event comes back with the decisions and the same turn goes on from that call
 * (resume-approved-step.ts). Every failure becomes a structured TurnResult; this never throws.
 */
import { RESULTS_ARRIVED_EVENT, type AgentEvent } from "../../protocol/agent-event.ts";
import { compose } from "../../shared/compose.ts";
import { isGoondanError } from "../../shared/errors.ts";
import { newSpanId } from "../../shared/ids.ts";
import type { TokenUsage } from "../model/token-usage.ts";
import type { TurnMiddlewareContext } from "./pipeline-contexts.ts";
import type { TurnResult } from "./turn-result.ts";
import { middlewareAgents } from "./middleware-agents.ts";
import type { Approval } from "../../protocol/approval.ts";
import { recoverInterruptedStep } from "./recover-interrupted-step.ts";
import { resumeApprovedStep } from "./resume-approved-step.ts";
import { isStoreFailure, nextStepAfter, type NextStep, type TurnEnding } from "./next-step.ts";
import { runStep, type TurnScope } from "./run-step.ts";
import type { TurnEnvironment } from "./turn-environment.ts";
import { deliverPendingResults } from "./deliver-pending-results.ts";
import { isLimitError } from "./limit-error.ts";
import { createMessage } from "../conversation/message-factory.ts";

export { INTER_AGENT_RESPONSE_KEY } from "./deliver-pending-results.ts";
import { turnConversationState } from "../conversation/conversation-state.ts";

export interface RunTurnOptions {
  env: TurnEnvironment;
  event: AgentEvent;
  /** Aborting ends the turn at the next await (`finishReason: "aborted"`). */
  signal?: AbortSignal;
  /** Default: a new `turn_…` id. */
  turnId?: string;
  /** How the process died with this event in flight the last time (the delivery's `crashedBefore`). */
  crashedBefore?: string;
  /** The event was delivered before (a crash, a stop, or an orchestrator restart came between): its turn resumes. */
  redelivery?: boolean;
  /** The turn stopped for these approvals before and every one is decided: it goes on (resume-approved-step.ts). */
  approvals?: readonly Approval[];
}

/** Runs one turn; never throws. An aborted turn (see next-step.ts) ends `aborted` and must not be committed. */
export async function runTurn(options: RunTurnOptions): Promise<TurnEnding<TurnResult>> {
  const { env, event } = options;
  const { ids, now } = env;
  const turnId = options.turnId ?? ids("turn");
  const turnSpanId = newSpanId();
  const startedAt = now();
  const signal = options.signal ?? new AbortController().signal;
  const spans = {
    traceId: event.traceId,
    spanId: turnSpanId,
    ...(event.parentSpanId === undefined ? {} : { parentSpanId: event.parentSpanId }),
    turnId,
    eventId: event.id,
  };
  env.runtimeEvents.emit({
    type: "turn.started",
    ...spans,
    data: { eventType: event.type, source: event.source.name, input: event.input },
  });

  const conversationState = turnConversationState(env.conversation);
  const context: TurnMiddlewareContext = {
    agentName: env.agentName,
    instanceKey: env.instanceKey,
    turnId,
    traceId: event.traceId,
    inputEvent: event,
    get messages() {
      return env.conversation.messages;
    },
    conversationState,
    conversation: { older: (query) => env.conversation.older(query) },
    metadata: {},
    // Once aborted, nothing more is stored: the turn is redelivered and must not replay what followed the abort.
    emitMessageEvent: (messageEvent) => {
      if (signal.aborted) return;
      env.conversation.emit(messageEvent);
      conversationState.record(messageEvent);
    },
    // Requests from turn and step middleware carry the turn's trace and call chain, parented to the turn's span.
    agents: middlewareAgents(
      env.runtime({ traceId: event.traceId, parentSpanId: turnSpanId, callChain: event.callChain }),
    ),
  };

  env.approvals?.begin({
    eventId: event.id,
    turnId,
    traceId: event.traceId,
    ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
  });
  const holding = (): boolean => env.approvals?.holding === true;
  if ((options.approvals?.length ?? 0) > 0) await resumeApprovedStep({ env, context, spanId: turnSpanId, signal });
  env.approvals?.decisionsUsed();
  if (options.redelivery === true && !holding())
    await recoverInterruptedStep({
      env,
      context,
      spans,
      signal,
      ...(options.crashedBefore === undefined ? {} : { crashedBefore: options.crashedBefore }),
    });

  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let steps = 0;
  const core = async (ctx: TurnMiddlewareContext): Promise<TurnResult> => {
    // A wake-up for arrived results brings no message of its own: the results are shown before the first step. The
    // user message's id comes from the event, so a resumed turn knows it at once; only a redelivery looks further
    // (a message written by an older goondan, under another id).
    const inputId = `in_${event.id}`;
    const alreadyThere =
      event.type === RESULTS_ARRIVED_EVENT ||
      env.conversation.has(inputId) ||
      (options.redelivery === true &&
        ctx.messages.some((message) => message.source.type === "user" && message.metadata.eventId === event.id));
    if (!alreadyThere) {
      ctx.emitMessageEvent({
        type: "append",
        message: createMessage({
          id: inputId,
          data: { role: "user", content: event.input },
          source: { type: "user", name: event.source.name },
          metadata: { eventId: event.id, eventType: event.type, turnId },
          now: now(),
        }),
      });
    }
    const scope: TurnScope = { context: ctx, eventId: event.id, turnSpanId, signal, startedAt };
    const outcome = { agent: env.agentName, instanceKey: env.instanceKey, eventId: event.id, turnId };
    let lastText = "";
    let next: NextStep = signal.aborted
      ? { type: "aborted" }
      : holding()
        ? { type: "awaiting_approval" }
        : { type: "run_again" };
    while (next.type === "run_again" && steps < env.maxStepsPerTurn) {
      deliverPendingResults(env, ctx);
      const step = await runStep({ env, scope, stepIndex: steps });
      steps += 1;
      usage.inputTokens += step.usage.inputTokens;
      usage.outputTokens += step.usage.outputTokens;
      if (step.text.length > 0) lastText = step.text;
      next = nextStepAfter({ step, signal, holding: holding() });
    }
    switch (next.type) {
      case "final": {
        const responseMessage = conversationState.responseMessage();
        return {
          ...outcome,
          status: "ok",
          response: next.response,
          finishReason: next.finishReason,
          steps,
          usage,
          ...(responseMessage === undefined ? {} : { responseMessage }),
        };
      }
      case "aborted":
        return {
          ...outcome,
          status: "error",
          response: lastText,
          finishReason: "aborted",
          error: { code: "E_AGENT_TURN_ABORTED", message: "the turn was aborted (shutdown)" },
          steps,
          usage,
        };
      case "run_again":
        return { ...outcome, status: "ok", response: lastText, finishReason: "max_steps", steps, usage };
      case "awaiting_approval":
        return {
          ...outcome,
          status: "awaiting_approval",
          response: lastText,
          finishReason: "awaiting_approval",
          approvalIds: env.approvals?.requestedIds ?? [],
          steps,
          usage,
        };
    }
  };

  let result: TurnResult;
  let unsaved = false;
  try {
    result = await compose(env.pipeline.middlewares("turn"), core)(context);
  } catch (error) {
    unsaved = isStoreFailure(error);
    const code =
      unsaved && isGoondanError(error)
        ? error.code
        : signal.aborted
          ? "E_AGENT_TURN_ABORTED"
          : (isGoondanError(error) && /^E_(MODEL_|AGENT_)/.test(error.code)) || isLimitError(error)
            ? error.code
            : "E_AGENT_TURN_FAILED";
    const message = error instanceof Error ? error.message : String(error);
    // Not the error object itself: an APICallError carries the whole request body (the conversation).
    env.logger.error({ code, error: message.slice(0, 500), turnId }, "turn failed");
    result = {
      agent: env.agentName,
      instanceKey: env.instanceKey,
      eventId: event.id,
      turnId,
      status: "error",
      response: "",
      finishReason: signal.aborted ? "aborted" : "error",
      error: { code, message },
      steps,
      usage,
    };
  }
  env.runtimeEvents.emit({
    type: result.status === "error" ? "turn.failed" : "turn.completed",
    ...spans,
    durationMs: now() - startedAt,
    usage: result.usage,
    data: { steps: result.steps, finishReason: result.finishReason, response: result.response },
    ...(result.error === undefined ? {} : { error: result.error }),
  });
  return unsaved
    ? { type: "unsaved", result }
    : signal.aborted
      ? { type: "aborted", result }
      : { type: "completed", result };
}
