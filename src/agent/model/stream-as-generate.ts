/**
 * Makes a model answer `doGenerate` through its `doStream` (SSE), collecting text deltas, tool calls, finish
 * reason and usage into one generate result. Used when `Model.spec.options.stream` is true, so the one step
 * loop (generateText) also runs over streaming endpoints. A stream `error` part is thrown as the call's error.
 */
import type { LanguageModelV3, LanguageModelV3Content, LanguageModelV3GenerateResult } from "@ai-sdk/provider";

export function streamAsGenerate(model: LanguageModelV3): LanguageModelV3 {
  return {
    specificationVersion: "v3",
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doStream: (options) => model.doStream(options),
    doGenerate: async (options) => {
      const { stream, request, response } = await model.doStream(options);
      const content: LanguageModelV3Content[] = [];
      const texts = new Map<string, { type: "text"; text: string }>();
      let finish: Pick<LanguageModelV3GenerateResult, "finishReason" | "usage"> | undefined;
      const reader = stream.getReader();
      for (;;) {
        const { done, value: part } = await reader.read();
        if (done) break;
        if (part.type === "text-start") {
          const text = { type: "text" as const, text: "" };
          texts.set(part.id, text);
          content.push(text);
        } else if (part.type === "text-delta") {
          const text = texts.get(part.id);
          if (text === undefined) content.push({ type: "text", text: part.delta });
          else text.text += part.delta;
        } else if (part.type === "tool-call") {
          content.push(part);
        } else if (part.type === "finish") {
          finish = { finishReason: part.finishReason, usage: part.usage };
        } else if (part.type === "error") {
          throw part.error;
        }
      }
      if (finish === undefined) throw new Error("the model stream ended without a finish part");
      return { content: content.filter((part) => part.type !== "text" || part.text.length > 0), ...finish, warnings: [], ...(request === undefined ? {} : { request }), ...(response === undefined ? {} : { response: { ...response } }) };
    },
  };
}
