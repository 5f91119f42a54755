/**
 * Built-in extension `message-compaction`: before a turn, when the conversation holds more than `maxMessages`
 * messages or `maxCharacters` characters, the older part (all but about the last `retainLastMessages`, cut at
 * a user message so no tool call loses its result; pinned messages stay) is summarised through the agent's
 * own model and replaced by that summary, as durable message events. `mode: truncate` summarises and replaces
 * everything. With `appendSummary: false` old messages are only removed, as upstream does. With `keepHistory`
 * (default true) what is removed is archived: out of what the model sees and of the agent process's memory, still
 * in the store, where `ctx.conversation.older()` reads it; `keepHistory: false` deletes it. (In `remove` mode the
 * summary takes the first summarised message's place by a `replace`, so that one message is not in the history.)
 *
 * Upstream Goondan's extension of this name removes old messages and leaves a marker with counts; here the
 * marker carries a real summary, so the agent keeps what the earlier turns established. When the model cannot
 * summarise (it failed or timed out), nothing is removed this turn and a warning says why.
 */
import type { ExtensionApi, JsonObject, Message, TurnMiddlewareContext } from "../../index.ts";

export interface CompactionSettings {
  maxMessages: number;
  maxCharacters: number;
  retainLastMessages: number;
  mode: "remove" | "truncate";
  appendSummary: boolean;
  summaryPrefix: string;
  /** Cap on the summary's length, in tokens (default 1024). */
  summaryMaxTokens: number;
  /** Removed messages stay in the stored history (archived) rather than being deleted (default true). */
  keepHistory: boolean;
}

/** Per message and in all, how much of the old conversation the summariser is shown. */
const MESSAGE_CHARS = 2000;
const TRANSCRIPT_CHARS = 48_000;

const SUMMARY_SYSTEM = [
  "You condense the earlier part of a conversation between a user, an AI agent and its tools, so the agent can continue without it.",
  "Keep every fact, decision, open task, promise, name, id, number, file path and preference that later turns may need; drop pleasantries and repetition.",
  "Write plain prose or short bullet points, in the language of the conversation, at most a few hundred words. Do not address anyone; do not invent anything.",
].join(" ");

export function compactionSettings(config: JsonObject): CompactionSettings {
  const count = (key: string, fallback: number, min = 0) =>
    typeof config[key] === "number" && Number.isFinite(config[key]) && (config[key] as number) >= min
      ? Math.floor(config[key] as number)
      : fallback;
  return {
    maxMessages: count("maxMessages", 40, 1),
    maxCharacters: count("maxCharacters", 12_000, 1),
    retainLastMessages: count("retainLastMessages", 8),
    mode: config.mode === "truncate" ? "truncate" : "remove",
    appendSummary: config.appendSummary !== false,
    summaryPrefix: typeof config.summaryPrefix === "string" ? config.summaryPrefix : "[message-compaction]",
    summaryMaxTokens: count("summaryMaxTokens", 1024, 16),
    keepHistory: config.keepHistory !== false,
  };
}

/** A message's content as plain text: its text, tool calls as `name(args)`, tool results as JSON. */
export function messageAsText(message: Message): string {
  const content = (message.data as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: string; text?: unknown; toolName?: unknown; input?: unknown; output?: unknown }) => {
      if (part.type === "text") return String(part.text ?? "");
      if (part.type === "tool-call") return `[calls ${String(part.toolName)}(${JSON.stringify(part.input ?? {})})]`;
      if (part.type === "tool-result")
        return `[${String(part.toolName)} returned ${JSON.stringify((part.output as { value?: unknown } | undefined)?.value ?? part.output ?? null)}]`;
      return "";
    })
    .filter((text) => text !== "")
    .join("\n");
}

const isPinned = (message: Message) => message.metadata.pinned === true;
const sizeOf = (messages: readonly Message[]) =>
  messages.reduce((sum, message) => sum + messageAsText(message).length, 0);

/** Where the kept tail starts: about the last `retain` messages, moved back to a user message (never inside a tool exchange). */
export function keepFrom(messages: readonly Message[], retain: number): number {
  let cut = Math.max(0, messages.length - retain);
  while (cut > 0 && messages[cut]?.data.role !== "user") cut -= 1;
  return cut;
}

export function transcriptOf(messages: readonly Message[]): string {
  const lines = messages.map((message) => {
    const text = messageAsText(message);
    return `${message.data.role}: ${text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS)} …(cut)` : text}`;
  });
  const transcript = lines.join("\n\n");
  return transcript.length > TRANSCRIPT_CHARS
    ? `…(earlier part cut)\n${transcript.slice(-TRANSCRIPT_CHARS)}`
    : transcript;
}

export function register(api: ExtensionApi, config: JsonObject): void {
  const settings = compactionSettings(config);

  const summaryMessage = (ctx: TurnMiddlewareContext, text: string, removed: readonly Message[]): Message => ({
    id: `${ctx.turnId}-compaction`,
    data: {
      role: "user",
      content: `${settings.summaryPrefix} Summary of the ${removed.length} earlier messages of this conversation:\n${text}`,
    },
    metadata: {
      "compaction.summary": true,
      "compaction.mode": settings.mode,
      "compaction.removedCount": removed.length,
      "compaction.removedCharacters": sizeOf(removed),
      turnId: ctx.turnId,
    },
    createdAt: new Date().toISOString(),
    source: { type: "extension", name: api.name },
  });

  api.pipeline.register(
    "turn",
    async (ctx) => {
      const messages = ctx.messages;
      if (messages.length <= settings.maxMessages && sizeOf(messages) <= settings.maxCharacters) return ctx.next();
      const old =
        settings.mode === "truncate"
          ? [...messages]
          : messages.slice(0, keepFrom(messages, settings.retainLastMessages)).filter((message) => !isPinned(message));
      if (old.length === 0) return ctx.next();
      let summary: string | undefined;
      if (settings.appendSummary) {
        try {
          const answer = await api.model.generateText({
            system: SUMMARY_SYSTEM,
            prompt: transcriptOf(old),
            maxOutputTokens: settings.summaryMaxTokens,
          });
          summary = answer.text.trim();
          api.logger.info(
            { turnId: ctx.turnId, summarised: old.length, summaryCharacters: summary.length, usage: answer.usage },
            "message-compaction summarised earlier messages",
          );
        } catch (error) {
          api.logger.warn(
            { turnId: ctx.turnId, error: error instanceof Error ? error.message : String(error) },
            "message-compaction could not summarise; the conversation stays as it is this turn",
          );
          return ctx.next();
        }
      }
      if (settings.mode === "truncate") {
        ctx.emitMessageEvent({ type: "truncate", archive: settings.keepHistory });
        if (summary !== undefined) ctx.emitMessageEvent({ type: "append", message: summaryMessage(ctx, summary, old) });
        return ctx.next();
      }
      const [first, ...rest] = old;
      if (first !== undefined)
        ctx.emitMessageEvent(
          summary === undefined
            ? { type: "remove", targetId: first.id, archive: settings.keepHistory }
            : { type: "replace", targetId: first.id, message: summaryMessage(ctx, summary, old) },
        );
      for (const message of rest)
        ctx.emitMessageEvent({ type: "remove", targetId: message.id, archive: settings.keepHistory });
      return ctx.next();
    },
    { priority: -50 },
  );
}
