/**
 * Built-in `telegram`: a bot's side of a Telegram chat through the Bot API: send (long text is split into
 * several messages), edit, delete, react, setChatAction and downloadFile, with upstream Goondan's parameters
 * and results. The bot token comes from the Tool's `config.token` (a ValueSource, by default the env var
 * TELEGRAM_BOT_TOKEN), never from the model, and never appears in a result or an error; the API's address is
 * `config.apiBaseUrl`, else GOONDAN_TELEGRAM_API_BASE_URL, else https://api.telegram.org.
 */
import type { JsonObject } from "../../shared/json.ts";
import { isJsonObject } from "../../shared/json.ts";
import { configNumber, configString } from "../../tools/tool-config.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import type { ToolContext, ToolHandler } from "../../tools/types.ts";
import { resolveApiBaseUrl } from "../channels/api-base-url.ts";
import { fileResult } from "../channels/file-result.ts";
import { withoutUndefined, type FetchLike } from "../channels/http-call.ts";
import { TELEGRAM_API_BASE_URL, TELEGRAM_BASE_URL_ENV, TelegramBotApi } from "../channels/telegram-bot-api.ts";

export const TELEGRAM_TEXT_LIMIT = 4096;

const PARSE_MODES: Record<string, string> = {
  markdown: "Markdown",
  markdownv2: "MarkdownV2",
  "markdown-v2": "MarkdownV2",
  html: "HTML",
};
const CHAT_ACTIONS = [
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
];

/** Text cut into pieces of at most `limit` characters, at the last line break (else space) before the limit when there is one. */
export function splitText(text: string, limit = TELEGRAM_TEXT_LIMIT): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    const breakAt = Math.max(window.lastIndexOf("\n"), window.lastIndexOf(" "));
    const cut = breakAt > limit / 2 ? breakAt : limit;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^[\n ]/, "");
  }
  parts.push(rest);
  return parts;
}

function api(ctx: ToolContext, fetchImpl: FetchLike | undefined): TelegramBotApi {
  const token = configString(ctx.config, "token");
  if (token === undefined) {
    throw new ToolFault("E_TELEGRAM_NO_TOKEN", "no Telegram bot token is configured for the telegram tool", {
      suggestion: "An operator must set the env var TELEGRAM_BOT_TOKEN for goondan run.",
    });
  }
  const baseUrl = resolveApiBaseUrl({
    configured: [ctx.config.apiBaseUrl],
    envName: TELEGRAM_BASE_URL_ENV,
    fallback: TELEGRAM_API_BASE_URL,
  });
  return new TelegramBotApi({
    token,
    baseUrl,
    timeoutMs: configNumber(ctx.config, "timeoutMs", 15_000),
    ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
  });
}

const request = (ctx: ToolContext, input: JsonObject) => ({
  signal: ctx.signal,
  ...(typeof input.timeoutMs === "number" ? { timeoutMs: input.timeoutMs } : {}),
});
const chatIdOf = (input: JsonObject): string => String(input.chatId).trim();

function messageIdOf(input: JsonObject, key = "messageId"): number {
  const value = Number(input[key]);
  if (!Number.isInteger(value) || value <= 0)
    throw new ToolFault(
      "E_TELEGRAM_INVALID_ARGS",
      `${key} must be a positive integer, got ${JSON.stringify(input[key])}`,
    );
  return value;
}

function parseModeOf(input: JsonObject): string | undefined {
  if (typeof input.parseMode !== "string" || input.parseMode.trim() === "") return undefined;
  return PARSE_MODES[input.parseMode.trim().toLowerCase()];
}

function chatActionOf(input: JsonObject): string {
  const raw =
    [input.action, input.status].find((value): value is string => typeof value === "string" && value.trim() !== "") ??
    "typing";
  const action = raw
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  if (!CHAT_ACTIONS.includes(action))
    throw new ToolFault("E_TELEGRAM_INVALID_ARGS", `unknown chat action ${JSON.stringify(raw)}`, {
      suggestion: `Use one of: ${CHAT_ACTIONS.join(", ")}.`,
    });
  return action;
}

const sentMessage = (result: unknown) => ({
  messageId: isJsonObject(result) && typeof result.message_id === "number" ? result.message_id : null,
  date: isJsonObject(result) && typeof result.date === "number" ? result.date : null,
  text: isJsonObject(result) && typeof result.text === "string" ? result.text : null,
});

export function createTelegramHandlers(deps: { fetch?: FetchLike } = {}): Record<string, ToolHandler> {
  return {
    send: async (ctx, input) => {
      const bot = api(ctx, deps.fetch);
      const chatId = chatIdOf(input);
      const parts = splitText(String(input.text));
      const sent: ReturnType<typeof sentMessage>[] = [];
      for (const [index, text] of parts.entries()) {
        const result = await bot.call(
          "sendMessage",
          withoutUndefined({
            chat_id: chatId,
            text,
            parse_mode: parseModeOf(input),
            disable_notification: input.disableNotification,
            link_preview_options: input.disableWebPagePreview === true ? { is_disabled: true } : undefined,
            reply_parameters:
              index === 0 && input.replyToMessageId !== undefined
                ? withoutUndefined({
                    message_id: messageIdOf(input, "replyToMessageId"),
                    allow_sending_without_reply: input.allowSendingWithoutReply,
                  })
                : undefined,
          }),
          request(ctx, input),
        );
        sent.push(sentMessage(result));
      }
      const first = sent[0] ?? { messageId: null, date: null, text: null };
      return {
        ok: true,
        chatId,
        ...first,
        text: parts.length > 1 ? String(input.text) : first.text,
        ...(sent.length > 1 ? { messageIds: sent.map((message) => message.messageId) } : {}),
      };
    },
    edit: async (ctx, input) => {
      const chatId = chatIdOf(input);
      const messageId = messageIdOf(input);
      const result = await api(ctx, deps.fetch).call(
        "editMessageText",
        withoutUndefined({
          chat_id: chatId,
          message_id: messageId,
          text: String(input.text),
          parse_mode: parseModeOf(input),
          link_preview_options: input.disableWebPagePreview === true ? { is_disabled: true } : undefined,
        }),
        request(ctx, input),
      );
      return { ok: true, chatId, messageId: sentMessage(result).messageId ?? messageId, edited: true };
    },
    delete: async (ctx, input) => {
      const chatId = chatIdOf(input);
      const messageId = messageIdOf(input);
      await api(ctx, deps.fetch).call("deleteMessage", { chat_id: chatId, message_id: messageId }, request(ctx, input));
      return { ok: true, chatId, messageId, deleted: true };
    },
    react: async (ctx, input) => {
      const chatId = chatIdOf(input);
      const messageId = messageIdOf(input);
      const cleared = input.clear === true;
      const given = [input.emoji, ...(Array.isArray(input.emojis) ? input.emojis : [])]
        .filter((value): value is string => typeof value === "string" && value.trim() !== "")
        .map((value) => value.trim());
      const emojis = cleared ? [] : [...new Set(given)];
      if (!cleared && emojis.length === 0)
        throw new ToolFault(
          "E_TELEGRAM_INVALID_ARGS",
          "give emoji or emojis to react with, or clear: true to remove reactions",
        );
      await api(ctx, deps.fetch).call(
        "setMessageReaction",
        withoutUndefined({
          chat_id: chatId,
          message_id: messageId,
          reaction: emojis.map((emoji) => ({ type: "emoji", emoji })),
          is_big: input.isBig,
        }),
        request(ctx, input),
      );
      return { ok: true, chatId, messageId, cleared, emojis, reactionCount: emojis.length };
    },
    setChatAction: async (ctx, input) => {
      const chatId = chatIdOf(input);
      const action = chatActionOf(input);
      await api(ctx, deps.fetch).call("sendChatAction", { chat_id: chatId, action }, request(ctx, input));
      return { ok: true, chatId, status: action, action };
    },
    downloadFile: async (ctx, input) => {
      const bot = api(ctx, deps.fetch);
      const file = await bot.call("getFile", { file_id: String(input.fileId) }, request(ctx, input));
      if (!isJsonObject(file) || typeof file.file_path !== "string")
        throw new ToolFault(
          "E_TELEGRAM_API",
          "Telegram getFile returned no file_path (the file may be too big for bots to download)",
        );
      const maxBytes = typeof input.maxBytes === "number" ? input.maxBytes : 3_000_000;
      const { bytes, contentType } = await bot.download(file.file_path, { maxBytes, ...request(ctx, input) });
      const saved = await fileResult({
        ctx,
        bytes,
        contentType,
        includeBase64: input.includeBase64 !== false,
        includeDataUrl: input.includeDataUrl !== false,
        savePath: typeof input.savePath === "string" ? input.savePath : undefined,
      });
      return {
        ok: true,
        fileId: typeof file.file_id === "string" ? file.file_id : String(input.fileId),
        fileUniqueId: typeof file.file_unique_id === "string" ? file.file_unique_id : null,
        filePath: file.file_path,
        fileSize: typeof file.file_size === "number" ? file.file_size : null,
        ...saved,
      };
    },
  };
}

export const handlers: Record<string, ToolHandler> = createTelegramHandlers();
