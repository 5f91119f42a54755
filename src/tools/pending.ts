/**
 * Pending handles: a handler returns `pending(handle, output?, { completion })` when its work completes later.
 * The model gets `{status: "pending", handle, output?}` at once. When a `completion` promise is given, the agent
 * awaits it in the background, keeps its outcome durably, and shows it to the model before its next step (a
 * resolved value as `{status: "ok", output}`, a rejection as a structured `{status: "error", error}`), the same
 * way replies to `agents__request` with `async: true` are shown. Without a completion the handle only tells the
 * model that work was accepted; something else (e.g. an inbound event) must report the outcome.
 */
import type { JsonValue } from "../shared/json.ts";
import type { PendingHandle } from "./types.ts";

export interface PendingOptions {
  /**
   * Settles when the work is done: its value becomes the completion's output (converted to JSON and size-capped
   * like any tool output); a rejection becomes a structured tool error (throw a ToolFault to pick its code).
   */
  completion?: PromiseLike<unknown>;
}

/**
 * Marks a handler's return value as pending. `handle` identifies the work (e.g. a job id) and is shown to the
 * model with the immediate result and with the completion; `output` is what the model sees right away.
 */
export function pending(handle: string, output?: JsonValue, options: PendingOptions = {}): PendingHandle {
  if (typeof handle !== "string" || handle.length === 0) {
    throw new TypeError(`pending(handle): expected a non-empty string handle, got ${typeof handle}`);
  }
  const completion = options.completion;
  if (completion !== undefined && typeof (completion as { then?: unknown })?.then !== "function") {
    throw new TypeError("pending(handle, output, { completion }): completion must be a promise");
  }
  return {
    __goondanPending: true,
    handle,
    ...(output === undefined ? {} : { output }),
    ...(completion === undefined ? {} : { completion }),
  };
}

/** Never throws: a value whose getters throw (a hostile Proxy) is simply not a pending handle. */
export function isPendingHandle(value: unknown): value is PendingHandle {
  if (typeof value !== "object" || value === null) return false;
  try {
    return (
      (value as { __goondanPending?: unknown }).__goondanPending === true &&
      typeof (value as { handle?: unknown }).handle === "string"
    );
  } catch {
    return false;
  }
}
