/**
 * The prompt a step hands the model, kept converted. Each message of the conversation is turned into the
 * provider-neutral form (LanguageModelV3Message, by the AI SDK's own convertToLanguageModelPrompt) once, the first
 * time it is sent, and reused by every later step, so a step costs what the conversation grew by, not its length.
 * While only appends happened since the last step, only the new tail is converted; any other change (an extension
 * replaced or removed a message, a truncate) or a tail that is not whole (a tool call without its result, left by a
 * crash) falls back to converting the model's valid view of the whole conversation (conversation/model-view.ts),
 * which is also what every step does until the conversation changes again.
 */
import type { LanguageModelV3, LanguageModelV3Message, LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { ModelMessage } from "ai";
import { convertToLanguageModelPrompt } from "ai/internal";
import type { Conversation } from "../conversation/conversation.ts";
import { validModelView } from "../conversation/model-view.ts";

export class ModelPrompt {
  private converted: LanguageModelV3Message[] = [];
  /** How many messages of the conversation `converted` stands for (undefined: rebuild from the valid view). */
  private covered: number | undefined;
  private revision = -1;

  constructor(private readonly model: Pick<LanguageModelV3, "supportedUrls">) {}

  /** The whole prompt for a model call now: the system prompt, then the conversation as the model may see it. */
  async build(options: {
    system: string;
    conversation: Conversation;
    signal?: AbortSignal;
  }): Promise<LanguageModelV3Prompt> {
    const { conversation } = options;
    const messages = conversation.messages;
    if (this.covered === undefined || conversation.revision !== this.revision || messages.length < this.covered) {
      await this.rebuild(conversation, options.signal);
    } else if (messages.length > this.covered) {
      try {
        this.append(
          await this.convert(
            messages.slice(this.covered).map((message) => message.data),
            options.signal,
          ),
        );
        this.covered = messages.length;
      } catch {
        await this.rebuild(conversation, options.signal);
      }
    }
    // A new array each step (a caller may keep the one it was given); concat copies it natively, about 20x faster
    // than a spread on a long conversation.
    return ([{ role: "system", content: options.system }] as LanguageModelV3Prompt).concat(this.converted);
  }

  private async rebuild(conversation: Conversation, signal: AbortSignal | undefined): Promise<void> {
    const view = validModelView(conversation.messages);
    this.converted = await this.convert(
      view.messages.map((message) => message.data),
      signal,
    );
    this.revision = conversation.revision;
    // A whole conversation is kept up incrementally from here; one the view had to cut is rebuilt every step.
    this.covered = view.dropped.length === 0 ? conversation.messages.length : undefined;
  }

  private async convert(messages: ModelMessage[], signal: AbortSignal | undefined): Promise<LanguageModelV3Message[]> {
    if (messages.length === 0) return [];
    return convertToLanguageModelPrompt({
      prompt: { messages },
      supportedUrls: await this.model.supportedUrls,
      download: undefined,
      ...(signal === undefined ? {} : { abortSignal: signal }),
    });
  }

  /** Appends converted messages; results that follow results join one tool message, as the SDK's conversion does. */
  private append(tail: LanguageModelV3Message[]): void {
    const last = this.converted.at(-1);
    const first = tail[0];
    if (last?.role === "tool" && first?.role === "tool") {
      this.converted[this.converted.length - 1] = { ...first, content: [...last.content, ...first.content] };
      tail = tail.slice(1);
    }
    for (const message of tail) this.converted.push(message);
  }
}
