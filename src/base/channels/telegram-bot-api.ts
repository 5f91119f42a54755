/**
 * A small client of the Telegram Bot API (https://core.telegram.org/bots/api), shared by the `telegram` tool
 * and the `telegram-polling` connector: `call(method, payload)` POSTs JSON to `<base>/bot<token>/<method>` and
 * returns `result`, or throws `E_TELEGRAM_API` with Telegram's description and error_code (and, for 429, the
 * retry_after seconds on the fault); `download(filePath)` fetches `<base>/file/bot<token>/<path>` under a byte
 * cap. The token is only ever in the URL, and is cut out of every error message.
 */
import type { JsonObject } from "../../shared/json.ts";
import { isJsonObject } from "../../shared/json.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import { downloadedBytes, httpCall, jsonBody, type ChannelService, type FetchLike } from "./http-call.ts";

export const TELEGRAM_API_BASE_URL = "https://api.telegram.org";
export const TELEGRAM_BASE_URL_ENV = "GOONDAN_TELEGRAM_API_BASE_URL";
const SERVICE: ChannelService = {
  name: "Telegram",
  codes: {
    timeout: "E_TELEGRAM_TIMEOUT",
    unreachable: "E_TELEGRAM_UNREACHABLE",
    fileTooLarge: "E_TELEGRAM_FILE_TOO_LARGE",
  },
};

export interface TelegramBotApiOptions {
  token: string;
  /** Without a trailing slash; see resolveApiBaseUrl. */
  baseUrl: string;
  /** Per request; default 15000. */
  timeoutMs?: number;
  fetch?: FetchLike;
}

/** A Telegram answer with `ok: false`; `retryAfterSeconds` is set for 429 (flood control). */
export class TelegramApiFault extends ToolFault {
  constructor(
    message: string,
    readonly errorCode: number | undefined,
    readonly retryAfterSeconds: number | undefined,
    suggestion?: string,
  ) {
    super(
      errorCode === 429 ? "E_TELEGRAM_RATE_LIMITED" : "E_TELEGRAM_API",
      message,
      suggestion === undefined ? {} : { suggestion },
    );
    this.name = "TelegramApiFault";
  }
}

export class TelegramBotApi {
  constructor(private readonly options: TelegramBotApiOptions) {
    if (options.token.trim() === "") throw new ToolFault("E_TELEGRAM_NO_TOKEN", "no Telegram bot token is configured");
  }

  async call(
    method: string,
    payload: JsonObject,
    request: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<unknown> {
    const response = await httpCall({
      service: SERVICE,
      url: `${this.options.baseUrl}/bot${this.options.token}/${method}`,
      init: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload) },
      timeoutMs: request.timeoutMs ?? this.options.timeoutMs ?? 15_000,
      secrets: [this.options.token],
      signal: request.signal,
      fetch: this.options.fetch,
    });
    const body = await jsonBody(response);
    if (isJsonObject(body) && body.ok === true) return body.result;
    const description =
      isJsonObject(body) && typeof body.description === "string" ? body.description : `HTTP ${response.status}`;
    const errorCode =
      isJsonObject(body) && typeof body.error_code === "number"
        ? body.error_code
        : response.ok
          ? undefined
          : response.status;
    const parameters = isJsonObject(body) && isJsonObject(body.parameters) ? body.parameters : {};
    const retryAfter = typeof parameters.retry_after === "number" ? parameters.retry_after : undefined;
    throw new TelegramApiFault(
      `Telegram ${method} failed${errorCode === undefined ? "" : ` (${errorCode})`}: ${description}`,
      errorCode,
      retryAfter,
      suggestionFor(errorCode, description),
    );
  }

  /** A file's bytes by its `file_path` (from getFile), refused past `maxBytes`. */
  async download(
    filePath: string,
    request: { maxBytes: number; timeoutMs?: number; signal?: AbortSignal },
  ): Promise<{ bytes: Uint8Array; contentType: string | undefined }> {
    const response = await httpCall({
      service: SERVICE,
      url: `${this.options.baseUrl}/file/bot${this.options.token}/${filePath.split("/").map(encodeURIComponent).join("/")}`,
      init: { method: "GET" },
      timeoutMs: request.timeoutMs ?? this.options.timeoutMs ?? 15_000,
      secrets: [this.options.token],
      signal: request.signal,
      fetch: this.options.fetch,
    });
    const bytes = await downloadedBytes(response, {
      maxBytes: request.maxBytes,
      service: SERVICE,
      failureCode: "E_TELEGRAM_API",
    });
    return { bytes, contentType: response.headers.get("content-type") ?? undefined };
  }
}

function suggestionFor(errorCode: number | undefined, description: string): string | undefined {
  if (errorCode === 429) return "Telegram is rate limiting this bot: wait before sending again.";
  if (errorCode === 401) return "The bot token was refused; an operator must fix TELEGRAM_BOT_TOKEN.";
  if (/chat not found/i.test(description))
    return "Check chatId: use the chat_id property of the Telegram event you are answering.";
  if (/message to (edit|delete|react) not found|message not found/i.test(description))
    return "Check messageId: it must be a message of that chat.";
  return undefined;
}
