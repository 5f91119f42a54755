/**
 * Built-in `wait`: pause for a number of seconds (capped by `config.maxSeconds`, default 300), ending early
 * with an error when `ctx.signal` fires (timeout or shutdown).
 */
import { configNumber } from "../../tools/tool-config.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import type { ToolHandler } from "../../tools/types.ts";

export const handlers: Record<string, ToolHandler> = {
  seconds: async (ctx, input) => {
    const requested = typeof input.seconds === "number" && Number.isFinite(input.seconds) ? input.seconds : 0;
    const maxSeconds = configNumber(ctx.config, "maxSeconds", 300);
    const seconds = Math.min(Math.max(0, requested), maxSeconds);
    const started = Date.now();
    await sleep(seconds * 1000, ctx.signal);
    return { waitedMs: Date.now() - started, capped: seconds < requested };
  },
};

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ToolFault("E_WAIT_ABORTED", "the wait was cancelled"));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ToolFault("E_WAIT_ABORTED", "the wait was cancelled"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
