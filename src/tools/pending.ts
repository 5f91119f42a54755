/**
 * Pending handles: a handler returns `pending(handle, output?)` when its work completes later; the
 * completion arrives as an event into the same agent instance before the model's next step.
 */
import type { JsonValue } from "../shared/json.ts";
import type { PendingHandle } from "./types.ts";

/** Marks a handler's return value as pending. `handle` identifies the completion (e.g. a correlationId). */
export function pending(handle: string, output?: JsonValue): PendingHandle {
  if (typeof handle !== "string" || handle.length === 0) {
    throw new TypeError(`pending(handle): expected a non-empty string handle, got ${typeof handle}`);
  }
  return output === undefined ? { __goondanPending: true, handle } : { __goondanPending: true, handle, output };
}

/** Never throws: a value whose getters throw (a hostile Proxy) is simply not a pending handle. */
export function isPendingHandle(value: unknown): value is PendingHandle {
  if (typeof value !== "object" || value === null) return false;
  try {
    return (value as { __goondanPending?: unknown }).__goondanPending === true && typeof (value as { handle?: unknown }).handle === "string";
  } catch {
    return false;
  }
}
