/**
 * One model call of a step, made on the provider's model directly (`doGenerate`, or `doStream` when the Model
 * streams) with the prompt the step keeps converted (model-prompt.ts): the AI SDK's provider does the wire work,
 * and nothing already sent is validated or converted again. The offered tools go without `execute` (goondan runs
 * them); each attempt is bounded by the model's timeout and retried by callWithRetry. Text arriving from a stream is
 * handed to `stream` as it comes (a retried attempt says so first, so a listener can drop what it showed). Returns
 * the text, the tool calls, the finish reason, the token usage and the call's timing; a model failure throws
 * ModelCallError.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import type { ModelParams } from "../../config/types.ts";
import type { ToolCall, ToolCatalogItem } from "../../tools/types.ts";
import type { TokenUsage } from "./token-usage.ts";
import { callWithRetry, ModelCallError, type RetryPolicy } from "./call-with-retry.ts";
import type { ModelFailure } from "./model-failure.ts";
import type { ModelGate } from "./model-gate.ts";
import { DEFAULT_MODEL_TIMEOUT_MS, withModelTimeout } from "./model-call-timeout.ts";
import { readModelStream } from "./read-model-stream.ts";

export interface GeneratedStep {
  text: string;
  toolCalls: ToolCall[];
  finishReason: string;
  usage: TokenUsage;
  /** Whether the answer came as a stream, and after how long its first text or tool call did (ms). */
  streamed: boolean;
  timeToFirstTokenMs?: number;
}

/** Where streamed text goes while a call runs. */
export interface StepStream {
  delta(text: string): void;
  /** An attempt failed after some text was handed over; the next attempt starts over. */
  restarted(): void;
}

export interface GenerateStepOptions {
  model: LanguageModelV3;
  /** Call the provider's stream (Model `options.stream`). */
  streaming: boolean;
  params: ModelParams;
  prompt: LanguageModelV3Prompt;
  catalog: readonly ToolCatalogItem[];
  signal: AbortSignal;
  timeoutMs?: number;
  retryPolicy?: Partial<RetryPolicy>;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  onRetry: (retry: { attempt: number; delayMs: number; failure: ModelFailure }) => void;
  stream?: StepStream;
  /** Asked before each attempt, and told what the call spent (limits: budgets, provider pacing). */
  gate?: ModelGate;
}

function functionTools(catalog: readonly ToolCatalogItem[]): LanguageModelV3FunctionTool[] {
  return catalog.map((item) => ({
    type: "function",
    name: item.name,
    ...(item.description === undefined ? {} : { description: item.description }),
    inputSchema: (item.parameters ?? { type: "object", properties: {} }) as LanguageModelV3FunctionTool["inputSchema"],
  }));
}

/** A tool call's input as the model wrote it: parsed JSON, or the raw text (the tool's argument check then says why). */
function parsedInput(input: string): unknown {
  if (input.trim() === "") return {};
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return input;
  }
}

const tokens = (usage: LanguageModelV3Usage): TokenUsage => ({
  inputTokens: usage.inputTokens.total ?? 0,
  outputTokens: usage.outputTokens.total ?? 0,
});

export async function generateStep(options: GenerateStepOptions): Promise<GeneratedStep> {
  const { model, params, catalog, now } = options;
  const tools = catalog.length > 0 ? functionTools(catalog) : undefined;
  const call: Omit<LanguageModelV3CallOptions, "abortSignal"> = {
    prompt: options.prompt,
    ...(tools === undefined ? {} : { tools, toolChoice: { type: "auto" } }),
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(params.topP === undefined ? {} : { topP: params.topP }),
    ...(params.maxTokens === undefined ? {} : { maxOutputTokens: params.maxTokens }),
  };
  let handedOver = false;
  const attempts = callWithRetry({
    call: () => {
      if (handedOver) options.stream?.restarted();
      handedOver = false;
      const startedAt = now();
      return withModelTimeout({
        timeoutMs: options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
        signal: options.signal,
        call: async (abortSignal) => {
          if (!options.streaming) {
            const result = await model.doGenerate({ ...call, abortSignal });
            return { content: result.content, finishReason: result.finishReason.unified, usage: tokens(result.usage) };
          }
          const { stream } = await model.doStream({ ...call, abortSignal });
          return readModelStream({
            stream,
            startedAt,
            now,
            onText: (text) => {
              handedOver = true;
              options.stream?.delta(text);
            },
          });
        },
      });
    },
    signal: options.signal,
    ...(options.retryPolicy === undefined ? {} : { policy: options.retryPolicy }),
    sleep: options.sleep,
    now,
    onRetry: (retry) => {
      if (retry.failure.statusCode === 429) options.gate?.report({ throttledMs: retry.delayMs });
      options.onRetry(retry);
    },
    ...(options.gate === undefined
      ? {}
      : { beforeAttempt: (attempt: number) => (options.gate as ModelGate).permit(attempt) }),
  });
  const answer = await attempts.catch((error: unknown) => {
    // A call that gave up on a 429 (retries exhausted, a Retry-After too long) still pauses the Model's other calls.
    if (error instanceof ModelCallError && error.failure.statusCode === 429)
      options.gate?.report({ throttledMs: error.failure.retryAfterMs ?? 1000 });
    throw error;
  });
  options.gate?.report({ inputTokens: answer.usage.inputTokens, outputTokens: answer.usage.outputTokens });
  return {
    text: answer.content.flatMap((part: LanguageModelV3Content) => (part.type === "text" ? [part.text] : [])).join(""),
    toolCalls: answer.content.flatMap((part: LanguageModelV3Content) =>
      part.type === "tool-call" && part.providerExecuted !== true
        ? [{ id: part.toolCallId, name: part.toolName, args: parsedInput(part.input) }]
        : [],
    ),
    finishReason: answer.finishReason,
    usage: answer.usage,
    streamed: options.streaming,
    ...("timeToFirstTokenMs" in answer && answer.timeToFirstTokenMs !== undefined
      ? { timeToFirstTokenMs: answer.timeToFirstTokenMs }
      : {}),
  };
}
