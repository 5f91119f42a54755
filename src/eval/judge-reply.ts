/**
 * An Eval's `judge`: the named Model reads the rubric, the inputs and the agent's replies and answers a score from
 * 0 to 1 with a reason, as one JSON object. Called from this process straight through the model factory the agents
 * use (so every provider, and `replay`, works); with `--record` its call goes into the case's judge cassette, with
 * `--replay` it answers from it. A judge that fails or answers something unreadable is E_EVAL_JUDGE_FAILED: the
 * case's result is an error, and the other cases still run.
 */
import type { LanguageModelV3, LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { JudgeExpectation, ModelResource } from "../config/types.ts";
import type { Env } from "../config/value-source.ts";
import { ModelBehaviorError, SystemError, describe } from "../shared/errors.ts";
import { resolveApiKey } from "../agent/model/api-key.ts";
import { createLanguageModel } from "../agent/model/model-factory.ts";
import { wrapWithRecorder } from "../agent/model/recording-model.ts";
import { createReplayModel } from "../agent/model/replay-model.ts";
import type { TokenCount } from "./eval-report.ts";

export interface JudgeVerdict {
  score: number;
  reason: string;
  tokens: TokenCount;
}

export interface JudgeReplyOptions {
  judge: JudgeExpectation;
  model: ModelResource;
  turns: string[];
  replies: string[];
  env: Env;
  /** `--record`: append the judge's call here. */
  record?: string;
  /** `--replay`: answer from this cassette. */
  replay?: string;
}

const INSTRUCTIONS =
  "You grade the replies of an AI agent against a rubric. Answer with one JSON object and nothing else: " +
  '{"score": <a number from 0 (fails the rubric) to 1 (fully meets it)>, "reason": "<one sentence>"}.';

export async function judgeReply(options: JudgeReplyOptions): Promise<JudgeVerdict> {
  const model = await judgeModel(options);
  const transcript = options.turns
    .map((turn, index) => `User: ${turn}\nAgent: ${options.replies[index] ?? "(no reply)"}`)
    .join("\n\n");
  const prompt: LanguageModelV3Prompt = [
    { role: "system", content: INSTRUCTIONS },
    {
      role: "user",
      content: [{ type: "text", text: `Rubric:\n${options.judge.rubric}\n\nConversation:\n${transcript}` }],
    },
  ];
  let text: string;
  let tokens: TokenCount;
  try {
    const result = await model.doGenerate({ prompt, temperature: 0, maxOutputTokens: 400 });
    text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    tokens = { input: result.usage.inputTokens.total ?? 0, output: result.usage.outputTokens.total ?? 0 };
  } catch (error) {
    const described = describe(error);
    throw new SystemError(
      "E_EVAL_JUDGE_FAILED",
      `judge Model/${options.model.metadata.name} failed: ${described.code ?? described.name}: ${described.message}`,
      { cause: error },
    );
  }
  return { ...readVerdict(text, options.model.metadata.name), tokens };
}

async function judgeModel(options: JudgeReplyOptions): Promise<LanguageModelV3> {
  if (options.replay !== undefined)
    return createReplayModel({ cassette: options.replay, modelId: options.model.spec.model });
  const source = options.model.spec.apiKey;
  const apiKey = source === undefined ? undefined : resolveApiKey(source, options.env);
  const model = await createLanguageModel({ resource: options.model, ...(apiKey === undefined ? {} : { apiKey }) });
  return options.record === undefined ? model : wrapWithRecorder(model, options.record);
}

/** The verdict in the judge's answer: the first JSON object holding a score from 0 to 1. */
export function readVerdict(text: string, judge: string): { score: number; reason: string } {
  const match = /\{[\s\S]*\}/.exec(text);
  let parsed: unknown;
  try {
    parsed = match ? JSON.parse(match[0]) : undefined;
  } catch {
    parsed = undefined;
  }
  const score = (parsed as { score?: unknown } | undefined)?.score;
  if (typeof score !== "number" || !(score >= 0 && score <= 1))
    throw new ModelBehaviorError(
      "E_EVAL_JUDGE_FAILED",
      `judge Model/${judge} answered no score from 0 to 1: ${JSON.stringify(text.slice(0, 200))}`,
      { suggestion: "use a Model that follows instructions, or make the rubric shorter" },
    );
  const reason = (parsed as { reason?: unknown }).reason;
  return { score, reason: typeof reason === "string" ? reason : "" };
}
