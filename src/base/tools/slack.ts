/**
 * Built-in `slack`: a bot's side of Slack conversations through the Web API: send, read (a channel's history,
 * or a thread's replies), edit, delete, react and downloadFile, with upstream Goondan's parameters and results.
 * The bot token comes from the Tool's `config.token` (a ValueSource, by default the env var SLACK_BOT_TOKEN),
 * never from the model; files are only downloaded from Slack hosts, so the token is never sent elsewhere. The
 * API's address is `config.apiBaseUrl`, else GOONDAN_SLACK_API_BASE_URL, else https://slack.com/api.
 */
import type { JsonObject } from "../../shared/json.ts";
import { isJsonObject } from "../../shared/json.ts";
import { configNumber, configString } from "../../tools/tool-config.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import type { ToolContext, ToolHandler } from "../../tools/types.ts";
import { resolveApiBaseUrl } from "../channels/api-base-url.ts";
import { fileResult } from "../channels/file-result.ts";
import { withoutUndefined, type FetchLike } from "../channels/http-call.ts";
import { SLACK_API_BASE_URL, SLACK_BASE_URL_ENV, SlackWebApi } from "../channels/slack-web-api.ts";

function api(ctx: ToolContext, fetchImpl: FetchLike | undefined): SlackWebApi {
  const token = configString(ctx.config, "token");
  if (token === undefined) {
    throw new ToolFault("E_SLACK_NO_TOKEN", "no Slack bot token is configured for the slack tool", {
      suggestion: "An operator must set the env var SLACK_BOT_TOKEN for goondan run.",
    });
  }
  const baseUrl = resolveApiBaseUrl({
    configured: [ctx.config.apiBaseUrl],
    envName: SLACK_BASE_URL_ENV,
    fallback: SLACK_API_BASE_URL,
  });
  return new SlackWebApi({
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
const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;

/** Emoji names without surrounding colons, deduplicated; refused when empty or holding whitespace. */
export function reactionNames(input: JsonObject): string[] {
  const given = [input.emoji, ...(Array.isArray(input.emojis) ? input.emojis : [])].flatMap((value) =>
    typeof value === "string" && value.trim() !== "" ? [value.trim().replace(/^:(.+):$/, "$1")] : [],
  );
  const names = [...new Set(given)];
  if (names.length === 0)
    throw new ToolFault("E_SLACK_INVALID_ARGS", "give emoji or emojis (names such as eyes or :white_check_mark:)");
  const bad = names.find((name) => /\s/.test(name));
  if (bad !== undefined)
    throw new ToolFault("E_SLACK_INVALID_ARGS", `emoji names have no spaces, got ${JSON.stringify(bad)}`);
  return names;
}

export function createSlackHandlers(deps: { fetch?: FetchLike } = {}): Record<string, ToolHandler> {
  return {
    send: async (ctx, input) => {
      const channelId = String(input.channelId);
      const answer = await api(ctx, deps.fetch).call(
        "chat.postMessage",
        withoutUndefined({
          channel: channelId,
          text: String(input.text),
          thread_ts: text(input.threadTs),
          mrkdwn: input.mrkdwn,
          unfurl_links: input.unfurlLinks,
          unfurl_media: input.unfurlMedia,
          reply_broadcast: input.replyBroadcast,
        }),
        request(ctx, input),
      );
      const message = isJsonObject(answer.message) ? answer.message : {};
      return {
        ok: true,
        channelId: text(answer.channel) ?? channelId,
        messageTs: text(answer.ts) ?? null,
        text: typeof message.text === "string" ? message.text : String(input.text),
      };
    },
    read: async (ctx, input) => {
      const channelId = String(input.channelId);
      const messageTs = text(input.messageTs);
      const threadTs = text(input.threadTs);
      const method = threadTs === undefined ? "conversations.history" : "conversations.replies";
      const limit = typeof input.limit === "number" ? Math.trunc(input.limit) : messageTs === undefined ? 20 : 1;
      const answer = await api(ctx, deps.fetch).call(
        method,
        withoutUndefined({
          channel: channelId,
          ts: threadTs,
          latest: text(input.latest) ?? messageTs,
          oldest: text(input.oldest),
          inclusive:
            typeof input.inclusive === "boolean" ? input.inclusive : messageTs === undefined ? undefined : true,
          limit,
          cursor: text(input.cursor),
        }),
        request(ctx, input),
      );
      const messages = Array.isArray(answer.messages) ? answer.messages.filter(isJsonObject) : [];
      const metadata = isJsonObject(answer.response_metadata) ? answer.response_metadata : {};
      return {
        ok: true,
        channelId,
        method,
        messageTs: messageTs ?? null,
        threadTs: threadTs ?? null,
        count: messages.length,
        found: messageTs === undefined ? null : (messages.find((message) => message.ts === messageTs) ?? null),
        messages,
        hasMore: answer.has_more === true,
        nextCursor: text(metadata.next_cursor) ?? null,
      };
    },
    edit: async (ctx, input) => {
      const channelId = String(input.channelId);
      const messageTs = String(input.messageTs);
      const answer = await api(ctx, deps.fetch).call(
        "chat.update",
        withoutUndefined({ channel: channelId, ts: messageTs, text: String(input.text), mrkdwn: input.mrkdwn }),
        request(ctx, input),
      );
      return {
        ok: true,
        channelId: text(answer.channel) ?? channelId,
        messageTs: text(answer.ts) ?? messageTs,
        edited: true,
      };
    },
    delete: async (ctx, input) => {
      const channelId = String(input.channelId);
      const messageTs = String(input.messageTs);
      await api(ctx, deps.fetch).call("chat.delete", { channel: channelId, ts: messageTs }, request(ctx, input));
      return { ok: true, channelId, messageTs, deleted: true };
    },
    react: async (ctx, input) => {
      const channelId = String(input.channelId);
      const messageTs = String(input.messageTs);
      const names = reactionNames(input);
      const slack = api(ctx, deps.fetch);
      for (const name of names)
        await slack.call("reactions.add", { channel: channelId, timestamp: messageTs, name }, request(ctx, input));
      return { ok: true, channelId, messageTs, emojis: names, reactionCount: names.length };
    },
    downloadFile: async (ctx, input) => {
      const url = String(input.url);
      const maxBytes = typeof input.maxBytes === "number" ? input.maxBytes : 3_000_000;
      const { bytes, response } = await api(ctx, deps.fetch).download(url, { maxBytes, ...request(ctx, input) });
      const contentType = response.headers.get("content-type") ?? undefined;
      const declared = Number(response.headers.get("content-length") ?? Number.NaN);
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
        url,
        contentLength: Number.isFinite(declared) ? declared : null,
        etag: response.headers.get("etag"),
        contentDisposition: response.headers.get("content-disposition"),
        ...saved,
      };
    },
  };
}

export const handlers: Record<string, ToolHandler> = createSlackHandlers();
