/**
 * Retries one model call where retrying helps (429, 5xx, network), with exponential backoff that honours the
 * server's Retry-After, then gives up with a `ModelCallError` carrying the classified E_MODEL_* code. The AI SDK's
 * own retries are turned off (`maxRetries: 0`) so this is the one retry policy, and it is clock-injectable.
 */
import { GoondanError } from "../../shared/errors.ts";
import { classifyModelError, type ModelFailure } from "./model-failure.ts";

export class ModelCallError extends GoondanError {
  readonly blame = "model" as const;
  constructor(
    readonly failure: ModelFailure,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(failure.code, failure.message, { cause });
  }
}

export interface RetryPolicy {
  /** Retries after the first attempt. Default 3. */
  maxRetries: number;
  /** Default 500. */
  initialDelayMs: number;
  /** Default 30000; a Retry-After longer than `maxRetryAfterMs` (default 60000) ends the retries. */
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

export interface CallWithRetryOptions<T> {
  call: () => Promise<T>;
  policy?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  onRetry?: (info: { attempt: number; delayMs: number; failure: ModelFailure }) => void;
  /** Awaited before each attempt (a permit of model-gate.ts); what it throws ends the call as it is, unretried. */
  beforeAttempt?: (attempt: number) => Promise<void>;
}

export const abortableSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

export async function callWithRetry<T>(options: CallWithRetryOptions<T>): Promise<T> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  for (let attempt = 1; ; attempt++) {
    await options.beforeAttempt?.(attempt);
    try {
      return await options.call();
    } catch (error) {
      const failure = classifyModelError(error, now());
      const exhausted = attempt > policy.maxRetries;
      const tooLong = failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxRetryAfterMs;
      if (!failure.retryable || exhausted || tooLong || options.signal?.aborted === true)
        throw new ModelCallError(failure, attempt, error);
      const backoff = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
      const delayMs = failure.retryAfterMs ?? backoff;
      options.onRetry?.({ attempt, delayMs, failure });
      await sleep(delayMs, options.signal);
    }
  }
}
