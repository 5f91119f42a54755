/**
 * Reads a provider's stream (`doStream`) to its end: text deltas joined per text part (and handed to `onText` as
 * they arrive), tool calls, the finish reason and the token usage, with the time its first text or tool call took.
 * A stream `error` part is thrown as the call's error; a stream that ends without `finish` is an error too.
 */
import type { LanguageModelV3Content, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { TokenUsage } from "./token-usage.ts";

export interface ReadStream {
  content: LanguageModelV3Content[];
  finishReason: string;
  usage: TokenUsage;
  timeToFirstTokenMs?: number;
}

export async function readModelStream(options: {
  stream: ReadableStream<LanguageModelV3StreamPart>;
  startedAt?: number;
  now?: () => number;
  onText?: (text: string) => void;
}): Promise<ReadStream> {
  const now = options.now ?? Date.now;
  const content: LanguageModelV3Content[] = [];
  const texts = new Map<string, { type: "text"; text: string }>();
  let finish: { finishReason: string; usage: TokenUsage } | undefined;
  let firstAt: number | undefined;
  const reader = options.stream.getReader();
  for (;;) {
    const { done, value: part } = await reader.read();
    if (done) break;
    if (part.type === "text-start") {
      const text = { type: "text" as const, text: "" };
      texts.set(part.id, text);
      content.push(text);
    } else if (part.type === "text-delta") {
      firstAt ??= now();
      const text = texts.get(part.id);
      if (text === undefined) content.push({ type: "text", text: part.delta });
      else text.text += part.delta;
      if (part.delta.length > 0) options.onText?.(part.delta);
    } else if (part.type === "tool-call") {
      firstAt ??= now();
      content.push(part);
    } else if (part.type === "finish") {
      finish = {
        finishReason: part.finishReason.unified,
        usage: { inputTokens: part.usage.inputTokens.total ?? 0, outputTokens: part.usage.outputTokens.total ?? 0 },
      };
    } else if (part.type === "error") {
      throw part.error;
    }
  }
  if (finish === undefined) throw new Error("the model stream ended without a finish part");
  return {
    content: content.filter((part) => part.type !== "text" || part.text.length > 0),
    ...finish,
    ...(firstAt === undefined || options.startedAt === undefined
      ? {}
      : { timeToFirstTokenMs: firstAt - options.startedAt }),
  };
}
