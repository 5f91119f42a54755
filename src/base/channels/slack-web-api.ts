/**
 * A small client of the Slack Web API (https://api.slack.com/web), for the `slack` tool: `call(method, payload)`
 * POSTs with `Authorization: Bearer <token>` (JSON for write methods, form-encoded for the read methods that
 * take no JSON body) and returns the answer, or throws `E_SLACK_API` with Slack's `error` (`E_SLACK_RATE_LIMITED`
 * on 429, with Retry-After); `download(url)` fetches a private file under a byte cap, but only from a Slack host
 * (or the configured API's own origin): the bot token is never sent anywhere else.
 */
import type { JsonObject } from "../../shared/json.ts";
import { isJsonObject } from "../../shared/json.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import { downloadedBytes, httpCall, jsonBody, type ChannelService, type FetchLike } from "./http-call.ts";

export const SLACK_API_BASE_URL = "https://slack.com/api";
export const SLACK_BASE_URL_ENV = "GOONDAN_SLACK_API_BASE_URL";
const SERVICE: ChannelService = {
  name: "Slack",
  codes: { timeout: "E_SLACK_TIMEOUT", unreachable: "E_SLACK_UNREACHABLE", fileTooLarge: "E_SLACK_FILE_TOO_LARGE" },
};
/** Methods Slack does not accept JSON bodies for. */
const FORM_METHODS = new Set(["conversations.history", "conversations.replies"]);

export interface SlackWebApiOptions {
  token: string;
  baseUrl: string;
  timeoutMs?: number;
  fetch?: FetchLike;
}

export class SlackWebApi {
  constructor(private readonly options: SlackWebApiOptions) {
    if (options.token.trim() === "") throw new ToolFault("E_SLACK_NO_TOKEN", "no Slack bot token is configured");
  }

  async call(
    method: string,
    payload: JsonObject,
    request: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<JsonObject> {
    const form = FORM_METHODS.has(method);
    const body = form
      ? new URLSearchParams(
          Object.entries(payload).map(([key, value]): [string, string] => [
            key,
            typeof value === "string" ? value : JSON.stringify(value),
          ]),
        ).toString()
      : JSON.stringify(payload);
    const response = await httpCall({
      service: SERVICE,
      url: `${this.options.baseUrl}/${method}`,
      init: {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.options.token}`,
          "content-type": form ? "application/x-www-form-urlencoded" : "application/json; charset=utf-8",
        },
        body,
      },
      timeoutMs: request.timeoutMs ?? this.options.timeoutMs ?? 15_000,
      secrets: [this.options.token],
      signal: request.signal,
      fetch: this.options.fetch,
    });
    const answer = await jsonBody(response);
    if (response.status === 429) {
      throw new ToolFault(
        "E_SLACK_RATE_LIMITED",
        `Slack ${method} is rate limited; retry after ${response.headers.get("retry-after") ?? "a few"} seconds`,
        { suggestion: "Wait before calling Slack again." },
      );
    }
    if (isJsonObject(answer) && answer.ok === true) return answer;
    const error = isJsonObject(answer) && typeof answer.error === "string" ? answer.error : `HTTP ${response.status}`;
    throw new ToolFault(
      "E_SLACK_API",
      `Slack ${method} failed: ${error}`,
      suggestionFor(error) === undefined ? {} : { suggestion: suggestionFor(error) as string },
    );
  }

  /** Whether the bot token may be sent to this URL: Slack's own hosts, or the configured API's origin. */
  mayDownload(url: URL): boolean {
    if (url.protocol !== "https:" && url.protocol !== "http:") return false;
    if (url.origin === new URL(this.options.baseUrl).origin) return true;
    return url.protocol === "https:" && (url.hostname === "slack.com" || url.hostname.endsWith(".slack.com"));
  }

  async download(
    rawUrl: string,
    request: { maxBytes: number; timeoutMs?: number; signal?: AbortSignal },
  ): Promise<{ bytes: Uint8Array; response: Response }> {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new ToolFault("E_SLACK_FILE_URL", `expected a file URL, got ${JSON.stringify(rawUrl)}`);
    }
    if (!this.mayDownload(url)) {
      throw new ToolFault(
        "E_SLACK_FILE_URL",
        `refusing to send the Slack token to ${url.origin}: only Slack file URLs (https://files.slack.com/...) can be downloaded`,
        { suggestion: "Use the url_private (or file_url property) of a Slack file." },
      );
    }
    const response = await httpCall({
      service: SERVICE,
      url: url.toString(),
      init: { method: "GET", headers: { authorization: `Bearer ${this.options.token}` }, redirect: "manual" },
      timeoutMs: request.timeoutMs ?? this.options.timeoutMs ?? 15_000,
      secrets: [this.options.token],
      signal: request.signal,
      fetch: this.options.fetch,
    });
    return {
      bytes: await downloadedBytes(response, {
        maxBytes: request.maxBytes,
        service: SERVICE,
        failureCode: "E_SLACK_API",
      }),
      response,
    };
  }
}

function suggestionFor(error: string): string | undefined {
  switch (error) {
    case "channel_not_found":
    case "not_in_channel":
      return "Check channelId (the channel_id property of the Slack event), and that the bot is in that channel.";
    case "message_not_found":
      return "Check messageTs: it must be the ts of a message in that channel.";
    case "invalid_auth":
    case "not_authed":
    case "token_revoked":
      return "The bot token was refused; an operator must fix SLACK_BOT_TOKEN.";
    case "missing_scope":
      return "The Slack app lacks a scope this method needs; an operator must add it.";
    default:
      return undefined;
  }
}
