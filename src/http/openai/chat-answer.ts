/**
 * How a turn's outcome reads as OpenAI's `chat.completion` and its stream of `chat.completion.chunk`s. The finish
 * reason maps `stop` to `stop` and `max_steps` to `length`; a turn held at a tool call a person must approve ends
 * with `finish_reason: "awaiting_approval"`, its approval ids in the answer's `goondan.approvalIds` (decide them with
 * `POST /v1/approvals/:id`). Every answer names its event under `goondan` (`eventId`, `agent`, `instanceKey`).
 */
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { TokenUsage } from "../turn-usage.ts";

/** The finish reason of a turn held for a person's approval. */
export const AWAITING_APPROVAL = "awaiting_approval";

export interface ChatFrame {
  id: string;
  model: string;
  /** Seconds since the epoch, as OpenAI's `created`. */
  created: number;
}

export function finishReasonOf(outcome: TurnOutcome): string {
  if (outcome.status === "awaiting_approval") return AWAITING_APPROVAL;
  return outcome.finishReason === "max_steps" ? "length" : "stop";
}

export function goondanFields(outcome: TurnOutcome): Record<string, unknown> {
  return {
    eventId: outcome.eventId,
    agent: outcome.agent,
    instanceKey: outcome.instanceKey,
    ...(outcome.approvalIds === undefined ? {} : { approvalIds: outcome.approvalIds }),
  };
}

/** OpenAI's spelling of an event's token usage. */
export function openAiUsage(usage: TokenUsage) {
  const { inputTokens, outputTokens } = usage;
  return { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
}

export function chatCompletion(options: { frame: ChatFrame; outcome: TurnOutcome; usage: TokenUsage }) {
  const { frame, outcome } = options;
  return {
    id: frame.id,
    object: "chat.completion",
    created: frame.created,
    model: frame.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: outcome.response, refusal: null },
        finish_reason: finishReasonOf(outcome),
        logprobs: null,
      },
    ],
    usage: openAiUsage(options.usage),
    goondan: goondanFields(outcome),
  };
}

export function chatChunk(options: {
  frame: ChatFrame;
  delta: { role?: "assistant"; content?: string };
  finishReason?: string;
  extra?: Record<string, unknown>;
}) {
  return {
    ...chunkFrame(options.frame),
    choices: [{ index: 0, delta: options.delta, finish_reason: options.finishReason ?? null, logprobs: null }],
    ...options.extra,
  };
}

const chunkFrame = (frame: ChatFrame) => ({
  id: frame.id,
  object: "chat.completion.chunk",
  created: frame.created,
  model: frame.model,
});

/** The closing chunk that carries only usage (`stream_options.include_usage`), as OpenAI sends it. */
export function usageChunk(options: { frame: ChatFrame; usage: TokenUsage }) {
  return { ...chunkFrame(options.frame), choices: [], usage: openAiUsage(options.usage) };
}
