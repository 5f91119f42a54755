/**
 * The handler step of one tool call (after the catalog gate, middleware and validation of execute-tool-call.ts): runs
 * the export's handler with its ToolContext, raced against the export's timeout and the caller's shutdown signal
 * (ctx.signal aborts either way), and converts what it returns or throws into a ToolResult, JSON-converted and
 * size-capped; a pending handle's completion promise is captured for the hand-over. It never throws.
 */
import { systemClock, type Clock, type TimerHandle } from "../shared/clock.ts";
import type { JsonObject } from "../shared/json.ts";
import { isPendingHandle } from "./pending.ts";
import { absorbCompletion, type CapturedCompletion, type PendingCompletionListener } from "./pending-completion.ts";
import { describeThrown, TOOL_ERROR_CODES, toolError } from "./tool-errors.ts";
import { DEFAULT_MAX_OUTPUT_BYTES, toJsonOutput } from "./tool-output.ts";
import type { ToolRegistryEntry } from "./tool-registry.ts";
import type { ToolContext, ToolResult } from "./types.ts";

/** Everything of ToolContext the caller knows before the call; toolCallId, signal and config are added here. */
export type ToolInvocationContext = Omit<ToolContext, "toolCallId" | "signal" | "config"> & {
  /** Aborting it (shutdown) aborts the handler's ctx.signal and ends the call with E_TOOL_CANCELLED. */
  parentSignal?: AbortSignal;
  /**
   * Receives the completion promise of a call that ended pending with `pending(handle, output, { completion })`,
   * right when executeToolCall returns; the caller awaits it in the background (see settleCompletion).
   */
  onPendingCompletion?: PendingCompletionListener;
};

export function runHandler(options: {
  toolName: string;
  toolCallId: string;
  args: JsonObject;
  entry: ToolRegistryEntry;
  options: { context: ToolInvocationContext; clock?: Clock; maxOutputBytes?: number };
  captured: CapturedCompletion;
}): Promise<ToolResult> {
  const { toolName, toolCallId, args, entry, captured } = options;
  const { parentSignal } = options.options.context;
  const clock = options.options.clock ?? systemClock;
  const maxOutputBytes = options.options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const limit = entry.errorMessageLimit;
  if (parentSignal?.aborted) return Promise.resolve(cancelledResult(toolName, limit));

  const controller = new AbortController();
  const toolContext = handlerContext(options.options.context, {
    toolCallId,
    signal: controller.signal,
    config: entry.config,
  });
  return new Promise<ToolResult>((resolve) => {
    let settled = false;
    let timer: TimerHandle | undefined;
    const finish = (result: ToolResult): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      parentSignal?.removeEventListener("abort", onParentAbort);
      resolve(result);
    };
    const onParentAbort = (): void => {
      finish(cancelledResult(toolName, limit));
      controller.abort(abortReason("ToolCancelledError", `${toolName} was cancelled (shutdown)`));
    };
    let value: unknown;
    try {
      value = entry.handler(toolContext, args);
    } catch (error) {
      finish(thrownResult(error, limit));
      return;
    }
    // A pending handle's completion is kept for the hand-over, or absorbed when the call already ended.
    const capture = (handled: unknown): void => {
      const completion = completionOf(handled);
      if (completion === undefined) return;
      if (settled) return absorbCompletion(completion);
      captured.completion = completion;
      captured.handle = (handled as { handle: string }).handle;
    };
    if (!isThenable(value)) {
      capture(value);
      finish(handlerValueResult(value, { limit, maxOutputBytes }));
      return;
    }
    timer = clock.setTimeout(() => {
      finish(
        toolError(
          {
            code: TOOL_ERROR_CODES.timeout,
            message: `${toolName} did not finish within ${entry.timeoutMs} ms and was cancelled.`,
            suggestion: "Retry with a smaller input or split the work into smaller calls.",
          },
          { limit },
        ),
      );
      controller.abort(abortReason("ToolTimeoutError", `${toolName} timed out after ${entry.timeoutMs} ms`));
    }, entry.timeoutMs);
    if (parentSignal?.aborted) onParentAbort();
    else parentSignal?.addEventListener("abort", onParentAbort, { once: true });
    Promise.resolve(value).then(
      (resolved) => {
        capture(resolved);
        finish(handlerValueResult(resolved, { limit, maxOutputBytes }));
      },
      (error: unknown) => finish(thrownResult(error, limit)),
    );
  });
}

/**
 * The handler's ToolContext: what the caller knew (its getters kept as getters, so a lazily made value such as the
 * workdir is made only when the handler reads it) without the caller's own fields, plus the call's own.
 */
function handlerContext(
  context: ToolInvocationContext,
  own: Pick<ToolContext, "toolCallId" | "signal" | "config">,
): ToolContext {
  const fields = Object.getOwnPropertyDescriptors(context) as Record<string, PropertyDescriptor>;
  delete fields.parentSignal;
  delete fields.onPendingCompletion;
  return Object.defineProperties({ ...own }, fields) as ToolContext;
}

function handlerValueResult(value: unknown, options: { limit: number; maxOutputBytes: number }): ToolResult {
  try {
    return convertHandlerValue(value, options);
  } catch (error) {
    return resultConversionError(error, options.limit);
  }
}

function convertHandlerValue(value: unknown, options: { limit: number; maxOutputBytes: number }): ToolResult {
  if (isPendingHandle(value)) {
    if (value.handle === "")
      return toolError(
        {
          code: TOOL_ERROR_CODES.failed,
          name: "ToolOutputError",
          message: "the tool returned a pending handle with an empty id",
        },
        { limit: options.limit },
      );
    if (value.output === undefined) return { status: "pending", handle: value.handle };
    const output = toJsonOutput(value.output, { maxBytes: options.maxOutputBytes });
    if (!output.ok)
      return toolError(
        { code: TOOL_ERROR_CODES.failed, name: "ToolOutputError", message: output.message },
        { limit: options.limit },
      );
    return { status: "pending", handle: value.handle, output: output.value };
  }
  const output = toJsonOutput(value, { maxBytes: options.maxOutputBytes });
  if (!output.ok)
    return toolError(
      { code: TOOL_ERROR_CODES.failed, name: "ToolOutputError", message: output.message },
      { limit: options.limit },
    );
  return { status: "ok", output: output.value };
}

function completionOf(value: unknown): PromiseLike<unknown> | undefined {
  if (!isPendingHandle(value)) return undefined;
  try {
    const completion = value.completion;
    return isThenable(completion) ? completion : undefined;
  } catch {
    return undefined;
  }
}

function thrownResult(error: unknown, limit: number): ToolResult {
  return toolError(describeThrown(error), { limit });
}

function cancelledResult(toolName: string, limit: number): ToolResult {
  return toolError(
    { code: TOOL_ERROR_CODES.cancelled, message: `${toolName} was cancelled because the agent is shutting down.` },
    { limit },
  );
}

function abortReason(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  if ((typeof value !== "object" || value === null) && typeof value !== "function") return false;
  try {
    return typeof (value as { then?: unknown }).then === "function";
  } catch {
    return false;
  }
}

/** A result that could not be read or converted (e.g. a Proxy whose getters throw): not a middleware failure. */
export function resultConversionError(error: unknown, limit: number): ToolResult {
  const described = describeThrown(error);
  return toolError(
    {
      code: TOOL_ERROR_CODES.failed,
      name: "ToolOutputError",
      message: `the tool's result could not be read or converted to JSON: ${described.message}`,
    },
    { limit },
  );
}
