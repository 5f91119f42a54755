/**
 * Model-supplied regular expressions run in a Worker with a time budget (default 2 s): JavaScript regexes
 * backtrack, and a pattern like `(a+)+$` would otherwise freeze the agent process. A job past its budget is
 * stopped by terminating the worker and reported as E_TEXT_REGEX_TIMEOUT.
 */
import { ToolFault } from "../../tools/tool-errors.ts";

export type RegexJob =
  | {
      op: "replace";
      text: string;
      pattern: string;
      flags: string;
      replacement: string;
      all: boolean;
      maxLength: number;
    }
  | { op: "split"; text: string; pattern: string; flags: string; all: boolean; limit?: number };

export type RegexOutcome =
  | { ok: true; text: string; count: number }
  | { ok: true; parts: string[] }
  | { ok: false; code: string; message: string };

export const DEFAULT_REGEX_BUDGET_MS = 2000;
const WORKER_URL = new URL("./regex-worker.ts", import.meta.url).href;

export function checkRegex(pattern: string, flags: string): void {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new ToolFault(
      "E_TEXT_REGEX_INVALID",
      `invalid regular expression: ${error instanceof Error ? error.message : String(error)}`,
      {
        suggestion: "Escape special characters, or set regex to false for a plain string.",
      },
    );
  }
}

export function runRegexJob(
  job: RegexJob,
  options: { budgetMs?: number; signal?: AbortSignal } = {},
): Promise<RegexOutcome> {
  checkRegex(job.pattern, job.flags);
  const budgetMs = options.budgetMs ?? DEFAULT_REGEX_BUDGET_MS;
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL);
    let done = false;
    const finish = (action: () => void): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      worker.terminate();
      action();
    };
    const onAbort = (): void =>
      finish(() => reject(new ToolFault("E_TEXT_REGEX_ABORTED", "the regular expression was cancelled")));
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new ToolFault(
              "E_TEXT_REGEX_TIMEOUT",
              `the regular expression ran longer than ${budgetMs} ms and was stopped`,
              {
                suggestion:
                  "Avoid nested quantifiers such as (a+)+ and overlapping alternatives; or use a plain string.",
              },
            ),
          ),
        ),
      budgetMs,
    );
    options.signal?.addEventListener("abort", onAbort, { once: true });
    worker.onmessage = (event: MessageEvent<RegexOutcome>) => finish(() => resolve(event.data));
    worker.onerror = (event: ErrorEvent) =>
      finish(() => reject(new ToolFault("E_TEXT_REGEX", `the regular expression failed: ${event.message}`)));
    worker.postMessage(job);
  });
}
