/**
 * One model call of a step: the system prompt, the conversation, the offered tools (without `execute`: goondan runs
 * them), each attempt bounded by the model's timeout and retried by callWithRetry. Returns the text, the tool calls
 * and the token usage; a model failure throws ModelCallError.
 */
import { generateText, jsonSchema, tool, type ModelMessage, type ToolSet } from "ai";
import type { JsonObject } from "../../shared/json.ts";
import type { ToolCall, ToolCatalogItem } from "../../tools/types.ts";
import type { TokenUsage } from "../extensions/types.ts";
import type { TurnEnvironment } from "../loop/turn-environment.ts";
import { callWithRetry } from "./call-with-retry.ts";
import type { ModelFailure } from "./model-failure.ts";
import { DEFAULT_MODEL_TIMEOUT_MS, withModelTimeout } from "./model-call-timeout.ts";

export interface GeneratedStep {
  text: string;
  toolCalls: ToolCall[];
  finishReason: string;
  usage: TokenUsage;
}

function toToolSet(catalog: readonly ToolCatalogItem[]): ToolSet {
  const tools: ToolSet = {};
  for (const item of catalog) {
    tools[item.name] = tool({ ...(item.description === undefined ? {} : { description: item.description }), inputSchema: jsonSchema((item.parameters ?? { type: "object", properties: {} }) as JsonObject) });
  }
  return tools;
}

export async function generateStep(options: {
  env: TurnEnvironment;
  system: string;
  messages: ModelMessage[];
  catalog: readonly ToolCatalogItem[];
  signal: AbortSignal;
  onRetry: (retry: { attempt: number; delayMs: number; failure: ModelFailure }) => void;
}): Promise<GeneratedStep> {
  const { env, catalog } = options;
  const response = await callWithRetry({
    call: () =>
      withModelTimeout({
        timeoutMs: env.modelTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
        signal: options.signal,
        call: (abortSignal) =>
          generateText({
            model: env.model,
            system: options.system,
            messages: options.messages,
            ...(catalog.length > 0 ? { tools: toToolSet(catalog) } : {}),
            maxRetries: 0,
            abortSignal,
            ...(env.params.temperature === undefined ? {} : { temperature: env.params.temperature }),
            ...(env.params.topP === undefined ? {} : { topP: env.params.topP }),
            ...(env.params.maxTokens === undefined ? {} : { maxOutputTokens: env.params.maxTokens }),
          }),
      }),
    signal: options.signal,
    ...(env.retryPolicy === undefined ? {} : { policy: env.retryPolicy }),
    sleep: env.sleep,
    now: env.now,
    onRetry: options.onRetry,
  });
  return {
    text: response.text,
    toolCalls: response.toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: call.input as unknown })),
    finishReason: response.finishReason,
    usage: { inputTokens: response.usage.inputTokens ?? 0, outputTokens: response.usage.outputTokens ?? 0 },
  };
}
