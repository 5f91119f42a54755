/**
 * The built-in `slack` connector: an HTTP endpoint for the Slack Events API. It answers Slack's
 * url_verification challenge, checks every request's signature when a signing secret is set (refusing stale
 * timestamps), and emits upstream Goondan's events: `app_mention`, and `message_im` for other messages
 * (properties channel_id, ts, thread_ts, user_id, subtype, channel_type, and attachment_count, image_url,
 * file_url, file_name for shared files), with instanceKey `slack:<channel>:<thread or ts>`. Bot messages are
 * ignored; an event Slack retries, or a mention that also arrives as a message, is emitted once.
 *
 * Config: SLACK_WEBHOOK_PORT / port (8787), host (127.0.0.1), SLACK_WEBHOOK_PATH / path (`/`),
 * SLACK_MESSAGE_MODE / messageMode (`all`, `mention` or `channel_and_threads`), maxBodyBytes (1 MiB).
 * Secrets: SLACK_SIGNING_SECRET (or signingSecret, SIGNING_SECRET).
 */
import { isJsonObject, type JsonObject } from "../../shared/json.ts";
import type { ConnectorContext, ConnectorEvent } from "../../connector/connector-types.ts";
import { configValue } from "./config-value.ts";
import {
  emitFailure,
  endpointSettings,
  json,
  problem,
  readCappedBody,
  RecentKeys,
  serveEndpoint,
  type EndpointSettings,
} from "./http-endpoint.ts";
import { verifySlackSignature } from "./slack-signature.ts";

export type SlackMessageMode = "all" | "mention" | "channel_and_threads";

export interface SlackSettings extends EndpointSettings {
  messageMode: SlackMessageMode;
  signingSecret: string | undefined;
}

export function slackSettings(ctx: Pick<ConnectorContext, "config" | "secrets">): SlackSettings {
  const mode = String(configValue(ctx.config, "SLACK_MESSAGE_MODE", "messageMode") ?? "all").toLowerCase();
  return {
    ...endpointSettings(ctx.config, {
      portKeys: ["SLACK_WEBHOOK_PORT"],
      pathKeys: ["SLACK_WEBHOOK_PATH", "path", "PATH"],
      defaultPath: "/",
    }),
    messageMode: mode === "mention" || mode === "channel_and_threads" ? mode : "all",
    signingSecret: [
      ctx.secrets.SLACK_SIGNING_SECRET,
      ctx.secrets.signingSecret,
      ctx.secrets.SIGNING_SECRET,
      configValue(ctx.config, "SLACK_SIGNING_SECRET"),
    ].find((value): value is string => typeof value === "string" && value !== ""),
  };
}

const IMAGE_TYPES = new Set(["png", "jpg", "jpeg", "gif", "webp", "bmp", "svg", "tif", "tiff", "heic", "heif", "avif"]);
const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

interface Attachment {
  kind: "image" | "file";
  url: string;
  name: string;
}

const urlOf = (record: JsonObject) =>
  text(record.url_private_download) ??
  text(record.url_private) ??
  text(record.permalink_public) ??
  text(record.permalink) ??
  text(record.image_url) ??
  text(record.thumb_url) ??
  text(record.from_url) ??
  text(record.original_url);
const nameOf = (record: JsonObject, fallback: string) =>
  text(record.title) ?? text(record.name) ?? text(record.alt_text) ?? text(record.id) ?? fallback;

/** Files, link attachments and image blocks of a message, deduplicated. */
function attachmentsOf(event: JsonObject): Attachment[] {
  const found: Attachment[] = [];
  for (const file of Array.isArray(event.files) ? event.files.filter(isJsonObject) : []) {
    const url = urlOf(file);
    const image =
      String(file.mimetype ?? "").startsWith("image/") || IMAGE_TYPES.has(String(file.filetype ?? "").toLowerCase());
    if (url !== undefined)
      found.push({ kind: image ? "image" : "file", url, name: nameOf(file, image ? "image" : "file") });
  }
  for (const attachment of Array.isArray(event.attachments) ? event.attachments.filter(isJsonObject) : []) {
    const url = urlOf(attachment);
    const image = text(attachment.image_url) !== undefined || text(attachment.thumb_url) !== undefined;
    if (url !== undefined)
      found.push({ kind: image ? "image" : "file", url, name: nameOf(attachment, image ? "image" : "attachment") });
  }
  for (const block of Array.isArray(event.blocks) ? event.blocks.filter(isJsonObject) : []) {
    if (block.type !== "image") continue;
    const url = text(block.image_url) ?? (isJsonObject(block.slack_file) ? urlOf(block.slack_file) : undefined);
    if (url !== undefined) found.push({ kind: "image", url, name: nameOf(block, "image") });
  }
  const seen = new Set<string>();
  return found.filter((item) => {
    const key = `${item.kind}:${item.url}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The connector event for an Events API body, or undefined when it is not one to emit. */
export function slackEventToConnectorEvent(body: unknown, mode: SlackMessageMode): ConnectorEvent | undefined {
  if (!isJsonObject(body) || !isJsonObject(body.event)) return undefined;
  const event = body.event;
  const type = text(event.type);
  if (type !== "app_mention" && type !== "message") return undefined;
  if (mode === "mention" && type !== "app_mention") return undefined;
  const subtype = text(event.subtype);
  if (
    subtype === "bot_message" ||
    text(event.bot_id) !== undefined ||
    subtype === "message_changed" ||
    subtype === "message_deleted"
  )
    return undefined;
  const channel = text(event.channel);
  const ts = text(event.ts);
  const threadTs = text(event.thread_ts);
  const attachments = attachmentsOf(event);
  const lines = [text(event.text), ...attachments.map((item) => `[${item.kind}:${item.name}] ${item.url}`)].filter(
    (line): line is string => line !== undefined,
  );
  const messageText = lines.join("\n");
  if (channel === undefined || ts === undefined || messageText === "") return undefined;
  const properties: Record<string, string> = { channel_id: channel, ts };
  if (threadTs !== undefined) properties.thread_ts = threadTs;
  if (text(event.user) !== undefined) properties.user_id = text(event.user) as string;
  if (subtype !== undefined) properties.subtype = subtype;
  if (text(event.channel_type) !== undefined) properties.channel_type = text(event.channel_type) as string;
  if (attachments.length > 0) {
    properties.attachment_count = String(attachments.length);
    const image = attachments.find((item) => item.kind === "image");
    const file = attachments.find((item) => item.kind === "file");
    if (image) properties.image_url = image.url;
    if (file) {
      properties.file_url = file.url;
      properties.file_name = file.name;
    }
  }
  return {
    name: type === "app_mention" ? "app_mention" : "message_im",
    message: { type: "text", text: messageText },
    properties,
    instanceKey: `slack:${channel}:${threadTs ?? ts}`,
  };
}

/** The request handler, separate from the server so it can be tested with plain Requests. */
export function createSlackHandler(options: {
  ctx: Pick<ConnectorContext, "emit" | "logger">;
  settings: SlackSettings;
  nowSeconds?: () => number;
}) {
  const { ctx, settings } = options;
  const now = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const recent = new RecentKeys();
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== settings.path)
      return problem(404, "E_SLACK_NOT_FOUND", `expected POST ${settings.path}, got ${url.pathname}`);
    if (request.method !== "POST")
      return problem(405, "E_SLACK_METHOD", `expected POST, got ${request.method}`, { allow: "POST" });
    const raw = await readCappedBody(request, settings.maxBodyBytes);
    if (raw === undefined) return problem(413, "E_SLACK_TOO_LARGE", `body exceeds ${settings.maxBodyBytes} bytes`);
    if (settings.signingSecret !== undefined) {
      const check = verifySlackSignature({
        body: raw,
        secret: settings.signingSecret,
        signature: request.headers.get("x-slack-signature"),
        timestamp: request.headers.get("x-slack-request-timestamp"),
        nowSeconds: now(),
      });
      if (!check.ok) {
        ctx.logger.warn("slack request signature rejected", check.reason);
        return problem(401, "E_SLACK_SIGNATURE", check.reason);
      }
    }
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      return problem(400, "E_SLACK_BAD_JSON", "expected a JSON body (Events API)");
    }
    if (!isJsonObject(body)) return problem(400, "E_SLACK_BAD_JSON", "expected a JSON object body");
    if (body.type === "url_verification")
      return new Response(typeof body.challenge === "string" ? body.challenge : "", {
        headers: { "content-type": "text/plain" },
      });
    const event = slackEventToConnectorEvent(body, settings.messageMode);
    if (event === undefined) return json(200, { ok: true, ignored: true });
    const key = `${String(event.properties.channel_id)}:${String(event.properties.ts)}`;
    if (recent.seen(key)) return json(200, { ok: true, duplicate: true });
    try {
      const { eventId } = await ctx.emit(event);
      return json(200, { ok: true, eventId });
    } catch (error) {
      const failure = emitFailure(error);
      ctx.logger.warn(`slack event ${failure.kind}: ${failure.code} ${failure.message}`);
      if (failure.kind === "refused") return json(200, { ok: true, ignored: true, reason: failure.code });
      recent.forget(key);
      return problem(503, failure.code, failure.message);
    }
  };
}

export default async function slackConnector(ctx: ConnectorContext): Promise<void> {
  const settings = slackSettings(ctx);
  const server = serveEndpoint({ settings, handler: createSlackHandler({ ctx, settings }) });
  ctx.onShutdown(() => server.stop());
  if (settings.signingSecret === undefined)
    ctx.logger.warn(
      "slack: no SLACK_SIGNING_SECRET in the Connection's secrets; requests are not verified, so anyone who can reach the port can send events",
    );
  ctx.logger.info(
    `slack events endpoint on http://${settings.host}:${server.port}${settings.path}${settings.signingSecret ? " (signed)" : ""}`,
  );
}
