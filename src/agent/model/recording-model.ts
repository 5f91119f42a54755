/**
 * `goondan run --record <file>`: wraps any LanguageModelV3 and appends one cassette line (format in
 * cassette.ts) per successful call, so the run can later be replayed by the `replay` provider with no network.
 * The child reads the file from env `GOONDAN_RECORD_CASSETTE`. Streaming calls are recorded when their stream
 * finishes. Failed calls are not recorded.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { JsonlAppender } from "../../shared/jsonl-file.ts";
import { describeRequest, replyFromContent, type CassetteLine } from "./cassette.ts";

export { RECORD_CASSETTE_ENV } from "../../protocol/child-entry.ts";

export function wrapWithRecorder(model: LanguageModelV3, file: string): LanguageModelV3 {
  const appender = new JsonlAppender(file);
  const record = (
    options: LanguageModelV3CallOptions,
    content: readonly LanguageModelV3Content[],
    finishReason: string,
    usage: { input: number; output: number },
  ): void => {
    const line: CassetteLine = {
      v: 1,
      request: describeRequest(options),
      reply: replyFromContent(content, finishReason, usage),
    };
    appender.append(line);
  };
  return {
    specificationVersion: "v3",
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: async (options) => {
      const result = await model.doGenerate(options);
      record(options, result.content, result.finishReason.unified, {
        input: result.usage.inputTokens.total ?? 0,
        output: result.usage.outputTokens.total ?? 0,
      });
      return result;
    },
    doStream: async (options) => {
      const result = await model.doStream(options);
      const content: LanguageModelV3Content[] = [];
      let text = "";
      const transform = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          if (part.type === "text-delta") text += part.delta;
          if (part.type === "tool-call") content.push(part);
          if (part.type === "finish") {
            const all: LanguageModelV3Content[] = text.length > 0 ? [{ type: "text", text }, ...content] : content;
            record(options, all, part.finishReason.unified, {
              input: part.usage.inputTokens.total ?? 0,
              output: part.usage.outputTokens.total ?? 0,
            });
          }
          controller.enqueue(part);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(transform) };
    },
  };
}
