/**
 * The deadline of one model call: Model `spec.options.timeoutMs` (default 120000) read once per instance, and
 * `withModelTimeout`, which hands the call a signal that aborts on the turn's signal OR the deadline
 * (AbortSignal.any) and rejects with `ModelCallTimeoutError` when the deadline passes first, even if the
 * provider ignores its signal. model-failure.ts sorts that error as retryable E_MODEL_TIMEOUT, so a hung
 * connection is retried and, once retries are spent, ends the turn with a structured failure.
 */
import type { ModelResource } from "../../config/types.ts";
import { ConfigError, SystemError } from "../../shared/errors.ts";

export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;

/** The provider did not answer in time: retryable E_MODEL_TIMEOUT (model-failure.ts). */
export class ModelCallTimeoutError extends SystemError {
  constructor(readonly timeoutMs: number) {
    super("E_MODEL_TIMEOUT", `the model did not answer within ${timeoutMs} ms`);
  }
}

/** `spec.options.timeoutMs` of a Model: a positive number of milliseconds, or the default. */
export function modelTimeoutMs(resource: ModelResource): number {
  const value = resource.spec.options?.timeoutMs;
  if (value === undefined) return DEFAULT_MODEL_TIMEOUT_MS;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(
      "E_CONFIG_MODEL_TIMEOUT",
      `Model/${resource.metadata.name}: spec.options.timeoutMs must be a positive number of milliseconds; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export interface WithModelTimeoutOptions<T> {
  timeoutMs: number;
  /** The turn's signal: its abort is passed through as is (not a timeout). */
  signal: AbortSignal;
  call: (signal: AbortSignal) => Promise<T>;
}

export async function withModelTimeout<T>(options: WithModelTimeoutOptions<T>): Promise<T> {
  const deadline = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new ModelCallTimeoutError(options.timeoutMs);
      deadline.abort(error);
      reject(error);
    }, options.timeoutMs);
  });
  timedOut.catch(() => undefined); // only observed through the race below
  try {
    return await Promise.race([options.call(AbortSignal.any([options.signal, deadline.signal])), timedOut]);
  } catch (error) {
    if (deadline.signal.aborted && !options.signal.aborted) throw deadline.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
