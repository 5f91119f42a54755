/**
 * `api.model` of an extension: one more call of the agent's own model (its params, streaming, timeout and retries
 * as in a step, through the same generateStep), outside the conversation and without tools, e.g. to summarise old
 * turns. Failures reject with the same ModelCallError (code E_MODEL_*) a step would get.
 */
import type { LanguageModelV3, LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { ModelParams } from "../../config/types.ts";
import type { Logger } from "../../shared/logger.ts";
import { abortableSleep, type RetryPolicy } from "./call-with-retry.ts";
import { generateStep } from "./generate-step.ts";
import type { ModelGate } from "./model-gate.ts";
import type { TokenUsage } from "./token-usage.ts";

/** The agent's own model, for an extension that needs one more call of it (outside the conversation, no tools). */
export interface ExtensionModel {
  /** Rejects with a coded error (E_MODEL_TIMEOUT, E_MODEL_RATE_LIMITED, …) when the model cannot answer. */
  generateText(request: {
    system?: string;
    prompt: string;
    maxOutputTokens?: number;
    signal?: AbortSignal;
  }): Promise<{ text: string; usage: TokenUsage }>;
}

export interface ExtensionModelOptions {
  model: LanguageModelV3;
  streaming: boolean;
  params: ModelParams;
  /** Default 120000, as for steps. */
  timeoutMs?: number;
  retryPolicy?: Partial<RetryPolicy>;
  logger: Logger;
  /** The agent's limits (budgets, provider pacing) apply to an extension's calls as to a step's. */
  gate?: ModelGate;
}

export function extensionModel(options: ExtensionModelOptions): ExtensionModel {
  return {
    async generateText(request) {
      const prompt: LanguageModelV3Prompt = [
        ...(request.system === undefined ? [] : [{ role: "system" as const, content: request.system }]),
        { role: "user", content: [{ type: "text", text: request.prompt }] },
      ];
      const maxTokens = request.maxOutputTokens ?? options.params.maxTokens;
      const step = await generateStep({
        model: options.model,
        streaming: options.streaming,
        params: { ...options.params, ...(maxTokens === undefined ? {} : { maxTokens }) },
        prompt,
        catalog: [],
        signal: request.signal ?? new AbortController().signal,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(options.retryPolicy === undefined ? {} : { retryPolicy: options.retryPolicy }),
        ...(options.gate === undefined ? {} : { gate: options.gate }),
        sleep: abortableSleep,
        now: Date.now,
        onRetry: ({ attempt, delayMs, failure }) =>
          options.logger.warn({ attempt, delayMs, code: failure.code }, "extension model call failed; retrying"),
      });
      return { text: step.text, usage: step.usage };
    },
  };
}
