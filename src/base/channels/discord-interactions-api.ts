/**
 * The part of Discord's HTTP API an interactions endpoint needs to answer later than the 3-second reply
 * (https://discord.com/developers/docs/interactions/receiving-and-responding): editing the deferred original
 * response and posting follow-up messages, both authorized by the interaction's own token (valid 15 minutes,
 * kept out of error messages). Content is cut to Discord's 2000 characters.
 */
import { ToolFault } from "../../tools/tool-errors.ts";
import { httpCall, type ChannelService, type FetchLike } from "./http-call.ts";

export const DISCORD_API_BASE_URL = "https://discord.com/api/v10";
export const DISCORD_BASE_URL_ENV = "GOONDAN_DISCORD_API_BASE_URL";
export const DISCORD_CONTENT_LIMIT = 2000;
const SERVICE: ChannelService = {
  name: "Discord",
  codes: { timeout: "E_DISCORD_TIMEOUT", unreachable: "E_DISCORD_UNREACHABLE", fileTooLarge: "E_DISCORD_TOO_LARGE" },
};

export interface InteractionReplyOptions {
  baseUrl: string;
  applicationId: string;
  interactionToken: string;
  content: string;
  timeoutMs?: number;
  fetch?: FetchLike;
}

function clip(content: string): string {
  return content.length <= DISCORD_CONTENT_LIMIT ? content : `${content.slice(0, DISCORD_CONTENT_LIMIT - 1)}…`;
}

async function send(options: InteractionReplyOptions, method: "PATCH" | "POST", path: string): Promise<void> {
  const response = await httpCall({
    service: SERVICE,
    url: `${options.baseUrl}/webhooks/${encodeURIComponent(options.applicationId)}/${encodeURIComponent(options.interactionToken)}${path}`,
    init: {
      method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: clip(options.content), allowed_mentions: { parse: [] } }),
    },
    timeoutMs: options.timeoutMs ?? 15_000,
    secrets: [options.interactionToken],
    fetch: options.fetch,
  });
  if (!response.ok) {
    const detail = (await response.text().catch(() => "")).slice(0, 300);
    throw new ToolFault("E_DISCORD_API", `Discord ${method} ${path || "/"} failed: HTTP ${response.status} ${detail}`);
  }
}

/** Replaces the deferred ("is thinking…") response of an interaction. */
export function editOriginalResponse(options: InteractionReplyOptions): Promise<void> {
  return send(options, "PATCH", "/messages/@original");
}

/** Posts a follow-up message for an interaction. */
export function postFollowUp(options: InteractionReplyOptions): Promise<void> {
  return send(options, "POST", "");
}
