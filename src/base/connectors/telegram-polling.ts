/**
 * The built-in `telegram-polling` connector: long-polls the Bot API's getUpdates and emits one
 * `telegram_message` per message a person sends the bot (text, or a caption, with a photo or image document
 * noted by file id), with upstream Goondan's properties (chat_id, from_username, message_id, …, all strings)
 * and instanceKey `telegram:<chat_id>`. An update is confirmed (the next poll's offset passes it) only after
 * the orchestrator has durably accepted its event or refused it for good, so nothing is lost to a restart.
 * Failed polls back off (doubling from retry delay to a minute; Telegram's retry_after on 429).
 *
 * Secrets: TELEGRAM_BOT_TOKEN (or BOT_TOKEN, TELEGRAM_TOKEN). Config (upstream's names, or ours):
 * TELEGRAM_POLL_TIMEOUT_SECONDS / pollTimeoutSeconds (30), TELEGRAM_REQUEST_TIMEOUT_MS / requestTimeoutMs
 * (poll timeout + 5 s), TELEGRAM_RETRY_DELAY_MS / retryDelayMs (1000), TELEGRAM_INITIAL_OFFSET / initialOffset,
 * TELEGRAM_API_BASE_URL / apiBaseUrl (else GOONDAN_TELEGRAM_API_BASE_URL, else https://api.telegram.org).
 */
import { isJsonObject, type JsonObject } from "../../shared/json.ts";
import { resolveApiBaseUrl } from "../channels/api-base-url.ts";
import {
  TELEGRAM_API_BASE_URL,
  TELEGRAM_BASE_URL_ENV,
  TelegramApiFault,
  TelegramBotApi,
} from "../channels/telegram-bot-api.ts";
import type { ConnectorContext, ConnectorEvent } from "../../connector/connector-types.ts";
import { configValue } from "./config-value.ts";
import { emitFailure } from "./http-endpoint.ts";

export interface TelegramPollingSettings {
  token: string;
  baseUrl: string;
  pollTimeoutSeconds: number;
  requestTimeoutMs: number;
  retryDelayMs: number;
  initialOffset: number;
}

const MAX_BACKOFF_MS = 60_000;

function integer(value: unknown, fallback: number): number {
  const parsed =
    typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  return Number.isInteger(parsed) && parsed >= 0 ? parsed : fallback;
}

export function telegramPollingSettings(ctx: Pick<ConnectorContext, "config" | "secrets">): TelegramPollingSettings {
  const token = [
    ctx.secrets.TELEGRAM_BOT_TOKEN,
    ctx.secrets.BOT_TOKEN,
    ctx.secrets.TELEGRAM_TOKEN,
    ctx.secrets.token,
  ].find((value) => typeof value === "string" && value !== "");
  if (token === undefined) {
    throw Object.assign(
      new Error(
        "telegram-polling: the Connection's secrets need TELEGRAM_BOT_TOKEN (e.g. secrets: { TELEGRAM_BOT_TOKEN: { valueFrom: { env: TELEGRAM_BOT_TOKEN } } })",
      ),
      { code: "E_CONNECTOR_CONFIG" },
    );
  }
  const setting = (...names: string[]) =>
    configValue(ctx.config, ...names) ??
    names.map((name) => ctx.secrets[name]).find((value) => value !== undefined && value !== "");
  const pollTimeoutSeconds = integer(setting("TELEGRAM_POLL_TIMEOUT_SECONDS", "pollTimeoutSeconds"), 30);
  return {
    token,
    baseUrl: resolveApiBaseUrl({
      configured: [setting("TELEGRAM_API_BASE_URL", "apiBaseUrl")],
      envName: TELEGRAM_BASE_URL_ENV,
      fallback: TELEGRAM_API_BASE_URL,
    }),
    pollTimeoutSeconds,
    requestTimeoutMs: integer(
      setting("TELEGRAM_REQUEST_TIMEOUT_MS", "requestTimeoutMs"),
      (pollTimeoutSeconds + 5) * 1000,
    ),
    retryDelayMs: integer(setting("TELEGRAM_RETRY_DELAY_MS", "retryDelayMs"), 1000),
    initialOffset: integer(setting("TELEGRAM_INITIAL_OFFSET", "initialOffset"), 0),
  };
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);
const id = (value: unknown): string | undefined =>
  typeof value === "number" && Number.isFinite(value) ? String(Math.trunc(value)) : text(value);

/** The largest photo size (by area, then file size). */
function largestPhoto(value: unknown): JsonObject | undefined {
  if (!Array.isArray(value)) return undefined;
  const sizes = value.filter((item): item is JsonObject => isJsonObject(item) && typeof item.file_id === "string");
  const area = (photo: JsonObject) => Number(photo.width ?? 0) * Number(photo.height ?? 0);
  const bytes = (photo: JsonObject) => Number(photo.file_size ?? 0);
  return sizes.reduce<JsonObject | undefined>(
    (best, photo) =>
      best === undefined || area(photo) > area(best) || (area(photo) === area(best) && bytes(photo) >= bytes(best))
        ? photo
        : best,
    undefined,
  );
}

/** The event an update stands for, or undefined (not a message, from a bot, or nothing to say). */
export function updateToEvent(update: unknown): ConnectorEvent | undefined {
  if (!isJsonObject(update) || !isJsonObject(update.message)) return undefined;
  const message = update.message;
  const chat = isJsonObject(message.chat) ? message.chat : undefined;
  const chatId = id(chat?.id);
  if (chat === undefined || chatId === undefined) return undefined;
  const from = isJsonObject(message.from) ? message.from : undefined;
  if (from?.is_bot === true) return undefined;
  const properties: Record<string, string> = { update_id: id(update.update_id) ?? "", chat_id: chatId };
  const put = (key: string, value: string | undefined) => {
    if (value !== undefined) properties[key] = value;
  };
  put("chat_type", text(chat.type));
  put("chat_title", text(chat.title));
  put("chat_username", text(chat.username));
  put("message_id", id(message.message_id));
  put("date", id(message.date));
  put("from_id", id(from?.id));
  put("from_username", text(from?.username));
  put("from_first_name", text(from?.first_name));
  put("from_last_name", text(from?.last_name));
  const lines = [text(message.text) ?? text(message.caption)].filter((line): line is string => line !== undefined);
  const photo = largestPhoto(message.photo);
  if (photo !== undefined) {
    put("photo_file_id", text(photo.file_id));
    put("has_photo", "true");
    put("photo_file_unique_id", text(photo.file_unique_id));
    put("photo_width", id(photo.width));
    put("photo_height", id(photo.height));
    put("photo_file_size", id(photo.file_size));
    lines.push(`[telegram_photo] file_id=${String(photo.file_id)}`);
  }
  const document = isJsonObject(message.document) ? message.document : undefined;
  if (
    document !== undefined &&
    typeof document.file_id === "string" &&
    String(document.mime_type ?? "")
      .toLowerCase()
      .startsWith("image/")
  ) {
    put("image_document_file_id", document.file_id);
    put("has_image_document", "true");
    put("image_document_file_unique_id", text(document.file_unique_id));
    put("image_document_file_name", text(document.file_name));
    put("image_document_mime_type", text(document.mime_type));
    put("image_document_file_size", id(document.file_size));
    lines.push(`[telegram_image_document] file_id=${document.file_id}`);
  }
  const body = lines.join("\n").trim();
  if (body === "") return undefined;
  return {
    name: "telegram_message",
    message: { type: "text", text: body },
    properties,
    instanceKey: `telegram:${chatId}`,
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });

/** Polls until `ctx.signal` aborts. Exported with its api injectable for tests. */
export async function pollTelegram(options: {
  ctx: Pick<ConnectorContext, "emit" | "logger" | "signal">;
  settings: TelegramPollingSettings;
  api?: TelegramBotApi;
}): Promise<void> {
  const { ctx, settings } = options;
  const api = options.api ?? new TelegramBotApi({ token: settings.token, baseUrl: settings.baseUrl });
  let offset = settings.initialOffset;
  let backoffMs = settings.retryDelayMs;
  while (!ctx.signal.aborted) {
    let updates: unknown;
    try {
      updates = await api.call(
        "getUpdates",
        { timeout: settings.pollTimeoutSeconds, allowed_updates: ["message"], ...(offset > 0 ? { offset } : {}) },
        { timeoutMs: settings.requestTimeoutMs, signal: ctx.signal },
      );
    } catch (error) {
      if (ctx.signal.aborted) return;
      const retryAfterMs =
        error instanceof TelegramApiFault && error.retryAfterSeconds !== undefined
          ? error.retryAfterSeconds * 1000
          : backoffMs;
      ctx.logger.warn(
        `telegram getUpdates failed (retrying in ${retryAfterMs} ms): ${error instanceof Error ? error.message : String(error)}`,
      );
      await sleep(retryAfterMs, ctx.signal);
      backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
      continue;
    }
    backoffMs = settings.retryDelayMs;
    for (const update of Array.isArray(updates) ? updates : []) {
      const updateId = isJsonObject(update) && typeof update.update_id === "number" ? update.update_id : undefined;
      const event = updateToEvent(update);
      if (event !== undefined) {
        try {
          await ctx.emit(event);
        } catch (error) {
          const failure = emitFailure(error);
          if (failure.kind === "unavailable") {
            ctx.logger.warn(
              `telegram update ${updateId ?? "?"} not accepted (${failure.code}: ${failure.message}); it is polled again`,
            );
            if (!ctx.signal.aborted) await sleep(backoffMs, ctx.signal);
            break;
          }
          ctx.logger.warn(`telegram update ${updateId ?? "?"} refused (${failure.code}: ${failure.message}); skipped`);
        }
      }
      if (updateId !== undefined && updateId >= offset) offset = updateId + 1;
    }
  }
}

export default async function telegramPolling(ctx: ConnectorContext): Promise<void> {
  const settings = telegramPollingSettings(ctx);
  ctx.logger.info(
    `telegram-polling: polling ${new URL(settings.baseUrl).host} every ${settings.pollTimeoutSeconds} s (long poll)`,
  );
  await pollTelegram({ ctx, settings });
}
