/**
 * What the turn loop returns: a turn's result (the one TurnOutcome, with its step count and token usage) and each
 * step's result (the model's text and tool calls, the tools' results, and whether the turn runs another step). Turn
 * and step middleware see and may change them; extension authors import them from "goondan".
 */
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { Message, ToolResult } from "../../tools/types.ts";
import type { TokenUsage } from "../model/token-usage.ts";

/**
 * What the turn pipeline returns: the turn's outcome (the one TurnOutcome), with its step count and token usage,
 * and `responseMessage`, the assistant message that answered (absent when the turn ended without one).
 */
export interface TurnResult extends TurnOutcome {
  steps: number;
  usage: TokenUsage;
  responseMessage?: Message;
}

export interface StepToolOutcome {
  toolCallId: string;
  toolName: string;
  result: ToolResult;
}

export interface StepResult {
  stepIndex: number;
  text: string;
  toolCalls: { id: string; name: string; args: unknown }[];
  toolResults: StepToolOutcome[];
  finishReason: string;
  usage: TokenUsage;
  /** Whether the turn runs another step. Step middleware may set it (e.g. to refuse ending the turn). */
  continueTurn: boolean;
}
