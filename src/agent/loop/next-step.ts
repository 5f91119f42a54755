/**
 * What the turn loop does after a step, as a tagged value (as openai-agents-js' runner does): run another step,
 * end the turn with a final answer, stop at a tool call held for a person's approval (the turn resumes once it is
 * decided), or stop because the turn was aborted (shutdown grace over, orchestrator gone).
 * Whether a turn commits is a property of how it ended (`commits`): an aborted turn is never committed, so its
 * event stays in the orchestrator's inbox and the redelivery runs it for real. A turn whose step the store refused
 * (`unsaved`) is not committed either, and the process that ran it holds a conversation the store does not have: it
 * must start again from what the store holds.
 */
import { isGoondanError } from "../../shared/errors.ts";
import type { StepResult } from "./turn-result.ts";

export type NextStep =
  | { type: "run_again" }
  | { type: "final"; response: string; finishReason: string }
  | { type: "aborted" }
  | { type: "awaiting_approval" };

/** The next step after `step`: the model asked for tools (or step middleware wants more) → run again; else final. */
export function nextStepAfter(options: { step: StepResult; signal: AbortSignal; holding?: boolean }): NextStep {
  if (options.signal.aborted) return { type: "aborted" };
  if (options.holding === true) return { type: "awaiting_approval" };
  if (options.step.continueTurn) return { type: "run_again" };
  return { type: "final", response: options.step.text, finishReason: options.step.finishReason };
}

/** How a turn ended, and so whether it commits. */
export type TurnEnding<R> =
  | { type: "completed"; result: R }
  | { type: "aborted"; result: R }
  | { type: "unsaved"; result: R };

/** A commit the store refused (the instance link's codes): the turn ends `unsaved`. */
export const isStoreFailure = (error: unknown): boolean => isGoondanError(error) && error.code.startsWith("E_STORE_");

export const commits = <R>(ending: TurnEnding<R>): ending is { type: "completed"; result: R } =>
  ending.type === "completed";
