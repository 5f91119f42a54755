/**
 * A scripted LanguageModelV3 for unit tests: `MockLanguageModelV3` from `ai/test` answering `doGenerate` and
 * `doStream` from a queue of replies (text, tool calls, a thrown error, or a function of the call options).
 * A call with nothing left in the queue throws `ScriptedModelExhaustedError` and is counted, and
 * `assertDone()` throws when replies are left over or an extra call happened: the fake fails loudly.
 */
import { MockLanguageModelV3 } from "ai/test";
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";

export interface ScriptedToolCall {
  id?: string;
  name: string;
  args?: unknown;
}

export type ScriptedReply =
  | {
      text?: string;
      toolCalls?: ScriptedToolCall[];
      usage?: { input: number; output: number };
      finishReason?: "stop" | "tool-calls" | "length";
    }
  | { error: Error }
  | ((options: LanguageModelV3CallOptions) => ScriptedReply | Promise<ScriptedReply>);

export class ScriptedModelExhaustedError extends Error {
  readonly code = "E_SCRIPTED_MODEL_EXHAUSTED";
}

export interface ScriptedModel {
  model: MockLanguageModelV3;
  /** Every call's options, in order (generate and stream together). */
  calls: LanguageModelV3CallOptions[];
  push(...replies: ScriptedReply[]): void;
  remaining(): number;
  /** Throws when replies are left or the model was called once too often. */
  assertDone(): void;
}

let toolCallCounter = 0;

async function resolveReply(
  reply: ScriptedReply,
  options: LanguageModelV3CallOptions,
): Promise<Exclude<ScriptedReply, (options: LanguageModelV3CallOptions) => unknown>> {
  return typeof reply === "function" ? resolveReply(await reply(options), options) : reply;
}

function toResult(
  reply: Exclude<ScriptedReply, (options: LanguageModelV3CallOptions) => unknown>,
): LanguageModelV3GenerateResult {
  if ("error" in reply) throw reply.error;
  const content: LanguageModelV3Content[] = [];
  if (reply.text !== undefined) content.push({ type: "text", text: reply.text });
  for (const call of reply.toolCalls ?? []) {
    toolCallCounter += 1;
    content.push({
      type: "tool-call",
      toolCallId: call.id ?? `scripted-call-${toolCallCounter}`,
      toolName: call.name,
      input: JSON.stringify(call.args ?? {}),
    });
  }
  const hasCalls = (reply.toolCalls ?? []).length > 0;
  const input = reply.usage?.input ?? 10;
  const output = reply.usage?.output ?? 5;
  return {
    content,
    finishReason: { unified: reply.finishReason ?? (hasCalls ? "tool-calls" : "stop"), raw: undefined },
    usage: {
      inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: output, text: output, reasoning: undefined },
    },
    warnings: [],
  };
}

function toStreamParts(result: LanguageModelV3GenerateResult): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
  result.content.forEach((part, index) => {
    if (part.type === "text") {
      parts.push(
        { type: "text-start", id: `t${index}` },
        { type: "text-delta", id: `t${index}`, delta: part.text },
        { type: "text-end", id: `t${index}` },
      );
    } else if (part.type === "tool-call") {
      parts.push(part);
    }
  });
  parts.push({ type: "finish", finishReason: result.finishReason, usage: result.usage });
  return parts;
}

export function scriptedModel(replies: ScriptedReply[] = []): ScriptedModel {
  const queue = [...replies];
  const calls: LanguageModelV3CallOptions[] = [];
  let extraCalls = 0;
  const next = async (options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
    calls.push(options);
    const reply = queue.shift();
    if (reply === undefined) {
      extraCalls += 1;
      throw new ScriptedModelExhaustedError(
        `scripted model called ${calls.length} times but only ${calls.length - extraCalls} replies were scripted`,
      );
    }
    return toResult(await resolveReply(reply, options));
  };
  const model = new MockLanguageModelV3({
    provider: "scripted",
    modelId: "scripted",
    doGenerate: next,
    doStream: async (options) => {
      const result = await next(options);
      const parts = toStreamParts(result);
      return {
        stream: new ReadableStream({
          start: (controller) => {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
  return {
    model,
    calls,
    push: (...more) => {
      queue.push(...more);
    },
    remaining: () => queue.length,
    assertDone: () => {
      if (extraCalls > 0)
        throw new ScriptedModelExhaustedError(`scripted model got ${extraCalls} unexpected extra call(s)`);
      if (queue.length > 0)
        throw new ScriptedModelExhaustedError(
          `scripted model has ${queue.length} unused repl${queue.length === 1 ? "y" : "ies"}`,
        );
    },
  };
}
