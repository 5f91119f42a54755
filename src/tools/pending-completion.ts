/**
 * The hand-over of a pending tool's completion: executeToolCall captures the `completion` promise of a handler's
 * `pending(handle, output, { completion })` and, when the call's final result is that pending handle, passes it
 * to the caller's `onPendingCompletion`; otherwise (middleware replaced the result, nobody listens, the call timed
 * out) the promise is absorbed so a late rejection is never unhandled. `settleCompletion` turns the outcome into
 * the ToolResult the model reads: ok with the JSON-converted, size-capped value, or a structured error formatted
 * by the one error formatter (tool-errors.ts).
 */
import type { Logger } from "../shared/logger.ts";
import { describeThrown, TOOL_ERROR_CODES, toolError } from "./tool-errors.ts";
import { toJsonOutput } from "./tool-output.ts";
import type { ToolResult } from "./types.ts";

/** What the agent receives for a pending call whose handler gave a completion promise. */
export interface PendingCompletion {
  handle: string;
  toolName: string;
  toolCallId: string;
  completion: PromiseLike<unknown>;
  /** The tool's errorMessageLimit and the output cap, for settleCompletion. */
  errorMessageLimit: number;
  maxOutputBytes: number;
}

export type PendingCompletionListener = (completion: PendingCompletion) => void;

/** Filled by the handler run when its value is a pending handle with a completion. */
export interface CapturedCompletion {
  handle?: string;
  completion?: PromiseLike<unknown>;
}

/** Lets a completion nobody will deliver settle quietly (a rejection must not go unhandled). */
export function absorbCompletion(completion: PromiseLike<unknown>): void {
  Promise.resolve(completion).catch(() => {});
}

export function handOverCompletion(options: {
  result: ToolResult;
  captured: CapturedCompletion;
  listener: PendingCompletionListener | undefined;
  logger: Logger;
  details: Omit<PendingCompletion, "completion" | "handle">;
}): void {
  const { result, captured, listener, logger, details } = options;
  const completion = captured.completion;
  if (completion === undefined) return;
  if (result.status !== "pending" || result.handle !== captured.handle) {
    absorbCompletion(completion);
    return;
  }
  if (listener === undefined) {
    absorbCompletion(completion);
    logger.warn(
      { tool: details.toolName, handle: result.handle },
      "a pending tool gave a completion, but nothing here delivers completions; it is dropped",
    );
    return;
  }
  try {
    listener({ ...details, handle: result.handle, completion });
  } catch (error) {
    absorbCompletion(completion);
    logger.warn(
      { tool: details.toolName, handle: result.handle, error: describeThrown(error).message },
      "onPendingCompletion threw; the completion is dropped",
    );
  }
}

/** Waits for the completion and describes its outcome as a ToolResult. Never rejects. */
export async function settleCompletion(completion: PendingCompletion): Promise<ToolResult> {
  const limit = completion.errorMessageLimit;
  let value: unknown;
  try {
    value = await completion.completion;
  } catch (error) {
    return toolError(describeThrown(error), { limit });
  }
  const output = toJsonOutput(value, { maxBytes: completion.maxOutputBytes });
  if (!output.ok)
    return toolError({ code: TOOL_ERROR_CODES.failed, name: "ToolOutputError", message: output.message }, { limit });
  return { status: "ok", output: output.value };
}
