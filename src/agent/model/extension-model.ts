/**
 * `api.model` of an extension: one more call of the agent's own model (its params, timeout and retries as in
 * a step), outside the conversation and without tools, e.g. to summarise old turns. Failures reject with the
 * same ModelCallError (code MODEL_*) a step would get.
 */
import { generateText, type LanguageModel } from "ai";
import type { ModelParams } from "../../config/types.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ExtensionModel } from "../extensions/types.ts";
import { callWithRetry, type RetryPolicy } from "./call-with-retry.ts";
import { DEFAULT_MODEL_TIMEOUT_MS, withModelTimeout } from "./model-call-timeout.ts";

export interface ExtensionModelOptions {
  model: LanguageModel;
  params: ModelParams;
  /** Default 120000, as for steps. */
  timeoutMs?: number;
  retryPolicy?: Partial<RetryPolicy>;
  logger: Logger;
}

export function extensionModel(options: ExtensionModelOptions): ExtensionModel {
  return {
    async generateText(request) {
      const signal = request.signal ?? new AbortController().signal;
      const maxOutputTokens = request.maxOutputTokens ?? options.params.maxTokens;
      const response = await callWithRetry({
        call: () =>
          withModelTimeout({
            timeoutMs: options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
            signal,
            call: (abortSignal) =>
              generateText({
                model: options.model,
                ...(request.system === undefined ? {} : { system: request.system }),
                prompt: request.prompt,
                maxRetries: 0,
                abortSignal,
                ...(options.params.temperature === undefined ? {} : { temperature: options.params.temperature }),
                ...(options.params.topP === undefined ? {} : { topP: options.params.topP }),
                ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
              }),
          }),
        signal,
        ...(options.retryPolicy === undefined ? {} : { policy: options.retryPolicy }),
        onRetry: ({ attempt, delayMs, failure }) => options.logger.warn({ attempt, delayMs, code: failure.code }, "extension model call failed; retrying"),
      });
      return { text: response.text, usage: { inputTokens: response.usage.inputTokens ?? 0, outputTokens: response.usage.outputTokens ?? 0 } };
    },
  };
}
