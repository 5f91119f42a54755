/**
 * The `replay` provider: a LanguageModelV3 that answers from a cassette (format in cassette.ts) with no network.
 * Each call picks the first line matching its request digest, searching from just after the last line used,
 * preferring lines not used yet, so a cassette recorded over a whole demo replays in order, a restarted child
 * finds its place again, and the same question asked twice gets the same answer. No matching line is a
 * `E_MODEL_REPLAY_MISMATCH` ModelBehaviorError naming the cassette, the nearest line and what differed; an empty
 * cassette is `E_MODEL_REPLAY_EXHAUSTED`. Tool-call ids are made fresh per replay so histories stay unique.
 */
import { randomBytes } from "node:crypto";
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { ModelBehaviorError } from "../../shared/errors.ts";
import { readCassetteRecords } from "../../config/cassette-file.ts";
import { compilePattern, describeRequest, requestDifferences, type CassetteLine } from "./cassette.ts";

export interface ReplayModelOptions {
  /** Absolute path of the cassette JSONL file. */
  cassette: string;
  modelId?: string;
}

export class ReplayModel implements LanguageModelV3 {
  readonly specificationVersion = "v3";
  readonly provider = "replay";
  readonly modelId: string;
  readonly supportedUrls = {};
  private lines: CassetteLine[] | undefined;
  private readonly used = new Set<number>();
  private cursor = 0;

  constructor(private readonly options: ReplayModelOptions) {
    this.modelId = options.modelId ?? "replay";
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const line = this.pick(options);
    const content: LanguageModelV3Content[] = line.reply.content.map((part) =>
      part.type === "text"
        ? { type: "text", text: part.text }
        : {
            type: "tool-call",
            toolCallId: `replay_${randomBytes(6).toString("hex")}`,
            toolName: part.toolName,
            input: part.input,
          },
    );
    const hasCalls = content.some((part) => part.type === "tool-call");
    const finish = line.reply.finishReason as LanguageModelV3GenerateResult["finishReason"]["unified"];
    const { input, output } = line.reply.usage ?? { input: 0, output: 0 };
    return {
      content,
      finishReason: { unified: finish ?? (hasCalls ? "tool-calls" : "stop"), raw: line.reply.finishReason },
      usage: {
        inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: output, text: output, reasoning: undefined },
      },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<{ stream: ReadableStream<LanguageModelV3StreamPart> }> {
    const result = await this.doGenerate(options);
    const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
    result.content.forEach((part, index) => {
      if (part.type === "text")
        parts.push(
          { type: "text-start", id: `t${index}` },
          { type: "text-delta", id: `t${index}`, delta: part.text },
          { type: "text-end", id: `t${index}` },
        );
      else if (part.type === "tool-call") parts.push(part);
    });
    parts.push({ type: "finish", finishReason: result.finishReason, usage: result.usage });
    return {
      stream: new ReadableStream({
        start: (controller) => {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }

  private load(): CassetteLine[] {
    if (this.lines === undefined) {
      this.lines = (readCassetteRecords(this.options.cassette) as CassetteLine[])
        .filter(
          (line) =>
            typeof line?.request === "object" &&
            line.request !== null &&
            typeof line?.reply === "object" &&
            Array.isArray(line.reply?.content),
        )
        .map((line) => ({ ...line, request: compilePattern(line.request) }));
    }
    return this.lines;
  }

  private pick(options: LanguageModelV3CallOptions): CassetteLine {
    const lines = this.load();
    if (lines.length === 0)
      throw new ModelBehaviorError(
        "E_MODEL_REPLAY_EXHAUSTED",
        `cassette ${this.options.cassette} has no recorded replies`,
        { suggestion: "record one with `goondan run --record <file>`" },
      );
    const actual = describeRequest(options);
    const order = [...lines.keys()].map((offset) => (this.cursor + offset) % lines.length);
    const matching = order.filter(
      (index) => requestDifferences((lines[index] as CassetteLine).request, actual).length === 0,
    );
    const chosen = matching.find((index) => !this.used.has(index)) ?? matching[0];
    if (chosen === undefined) {
      const nearestIndex = order.find((index) => !this.used.has(index)) ?? this.cursor % lines.length;
      const nearest = lines[nearestIndex] as CassetteLine;
      const exhausted = this.used.size >= lines.length;
      throw new ModelBehaviorError(
        exhausted ? "E_MODEL_REPLAY_EXHAUSTED" : "E_MODEL_REPLAY_MISMATCH",
        `cassette ${this.options.cassette}: no recorded reply matches this request${exhausted ? " (every line was used)" : ""}; nearest is line ${nearestIndex + 1}, which differs in: ${requestDifferences(nearest.request, actual).join("; ")}`,
        { suggestion: "re-record the cassette with `goondan run --record <file>` after changing prompts or inputs" },
      );
    }
    this.used.add(chosen);
    this.cursor = (chosen + 1) % lines.length;
    return lines[chosen] as CassetteLine;
  }
}

export function createReplayModel(options: ReplayModelOptions): ReplayModel {
  return new ReplayModel(options);
}
