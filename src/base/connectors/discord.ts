/**
 * The built-in `discord` connector: an HTTP interactions endpoint for a Discord application. Every request
 * must carry a valid Ed25519 signature by the application (its public key is required: Discord itself refuses
 * an endpoint that accepts unsigned requests). PING is answered with PONG; a slash command emits
 * `slash_command` and a button or menu emits `component_interaction` (a modal, `interaction`), with upstream
 * Goondan's properties (interaction_id, channel_id, guild_id, command_name, custom_id, user_id, username) and
 * instanceKey `discord:<channel>`. Discord gets a deferred answer at once; when the turn replies, its text
 * replaces the deferred message (or follows a component), unless `replyWithTurnResponse` is false, in which
 * case Discord gets a short ephemeral acknowledgement and the agent answers through other means.
 *
 * Config: DISCORD_WEBHOOK_PORT / port (8787), host (127.0.0.1), DISCORD_WEBHOOK_PATH / path (`/`),
 * DISCORD_PUBLIC_KEY / publicKey (required; may also be a secret), replyWithTurnResponse (true),
 * DISCORD_API_BASE_URL / apiBaseUrl (else GOONDAN_DISCORD_API_BASE_URL, else https://discord.com/api/v10).
 */
import type { KeyObject } from "node:crypto";
import { isJsonObject, type JsonObject } from "../../shared/json.ts";
import { resolveApiBaseUrl } from "../channels/api-base-url.ts";
import {
  DISCORD_API_BASE_URL,
  DISCORD_BASE_URL_ENV,
  editOriginalResponse,
  postFollowUp,
} from "../channels/discord-interactions-api.ts";
import type { ConnectorContext, ConnectorEvent } from "../../connector/connector-types.ts";
import { configValue } from "./config-value.ts";
import { discordPublicKey, verifyDiscordSignature } from "./discord-signature.ts";
import {
  emitFailure,
  endpointSettings,
  json,
  problem,
  readCappedBody,
  serveEndpoint,
  type EndpointSettings,
} from "./http-endpoint.ts";

const PING = 1;
const APPLICATION_COMMAND = 2;
const MESSAGE_COMPONENT = 3;
const AUTOCOMPLETE = 4;
const MODAL_SUBMIT = 5;

export interface DiscordSettings extends EndpointSettings {
  publicKey: KeyObject;
  apiBaseUrl: string;
  replyWithTurnResponse: boolean;
}

export function discordSettings(ctx: Pick<ConnectorContext, "config" | "secrets">): DiscordSettings {
  const key =
    configValue(ctx.config, "DISCORD_PUBLIC_KEY", "publicKey") ??
    ctx.secrets.DISCORD_PUBLIC_KEY ??
    ctx.secrets.publicKey;
  if (typeof key !== "string" || key === "")
    throw Object.assign(
      new Error(
        "discord: the Connection needs DISCORD_PUBLIC_KEY (the application's public key, in config or secrets) to verify Discord's signatures",
      ),
      { code: "E_CONNECTOR_CONFIG" },
    );
  const reply = configValue(ctx.config, "replyWithTurnResponse", "DISCORD_REPLY_WITH_TURN_RESPONSE");
  return {
    ...endpointSettings(ctx.config, {
      portKeys: ["DISCORD_WEBHOOK_PORT"],
      pathKeys: ["DISCORD_WEBHOOK_PATH", "path", "PATH"],
      defaultPath: "/",
    }),
    publicKey: discordPublicKey(key),
    apiBaseUrl: resolveApiBaseUrl({
      configured: [configValue(ctx.config, "DISCORD_API_BASE_URL", "apiBaseUrl")],
      envName: DISCORD_BASE_URL_ENV,
      fallback: DISCORD_API_BASE_URL,
    }),
    replyWithTurnResponse: !(reply === false || reply === "false"),
  };
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** `/name key=value …` for a slash command, flattening sub-commands. */
function commandText(data: JsonObject): string {
  const parts = [`/${String(data.name)}`];
  const walk = (options: unknown) => {
    for (const option of Array.isArray(options) ? options.filter(isJsonObject) : []) {
      if (option.value !== undefined)
        parts.push(
          `${String(option.name)}=${typeof option.value === "string" ? option.value : JSON.stringify(option.value)}`,
        );
      else {
        parts.push(String(option.name));
        walk(option.options);
      }
    }
  };
  walk(data.options);
  return parts.join(" ");
}

/** The event an interaction stands for (undefined for PING and autocomplete). */
export function interactionToEvent(interaction: JsonObject): ConnectorEvent | undefined {
  const type = interaction.type;
  if (type === PING || type === AUTOCOMPLETE) return undefined;
  const data = isJsonObject(interaction.data) ? interaction.data : {};
  const member = isJsonObject(interaction.member) ? interaction.member : undefined;
  const user = isJsonObject(interaction.user) ? interaction.user : isJsonObject(member?.user) ? member.user : undefined;
  const properties: Record<string, string> = {};
  const put = (key: string, value: string | undefined) => {
    if (value !== undefined) properties[key] = value;
  };
  put("interaction_id", text(interaction.id));
  put(
    "channel_id",
    text(interaction.channel_id) ?? (isJsonObject(interaction.channel) ? text(interaction.channel.id) : undefined),
  );
  put("guild_id", text(interaction.guild_id));
  put("user_id", text(user?.id));
  put("username", text(user?.username));
  let name = "interaction";
  let body = "";
  if (type === APPLICATION_COMMAND) {
    name = "slash_command";
    put("command_name", text(data.name));
    body = text(data.name) === undefined ? "" : commandText(data);
  } else if (type === MESSAGE_COMPONENT) {
    name = "component_interaction";
    put("custom_id", text(data.custom_id));
    const values = Array.isArray(data.values) ? data.values.map(String) : [];
    body = [text(data.custom_id), ...values].filter(Boolean).join(" ");
  } else if (type === MODAL_SUBMIT) {
    put("custom_id", text(data.custom_id));
    const fields = (Array.isArray(data.components) ? data.components : []).flatMap((row) =>
      isJsonObject(row) && Array.isArray(row.components) ? row.components.filter(isJsonObject) : [],
    );
    body = [text(data.custom_id), ...fields.map((field) => `${String(field.custom_id)}=${String(field.value ?? "")}`)]
      .filter(Boolean)
      .join("\n");
  }
  return {
    name,
    message: { type: "text", text: body },
    properties,
    instanceKey: `discord:${properties.channel_id ?? properties.interaction_id ?? "unknown"}`,
  };
}

/** The request handler, separate from the server so it can be tested with plain Requests. */
export function createDiscordHandler(options: {
  ctx: Pick<ConnectorContext, "emit" | "request" | "logger">;
  settings: DiscordSettings;
}) {
  const { ctx, settings } = options;
  const answerLater = (interaction: JsonObject, event: ConnectorEvent, component: boolean) => {
    const reply = {
      baseUrl: settings.apiBaseUrl,
      applicationId: String(interaction.application_id ?? ""),
      interactionToken: String(interaction.token ?? ""),
    };
    void ctx
      .request(event)
      .then((outcome) =>
        outcome.status === "ok" ? outcome.response : `Sorry, that failed (${outcome.error?.code ?? "error"}).`,
      )
      .catch((error: unknown) => `Sorry, that could not be handled (${emitFailure(error).code}).`)
      .then((content) =>
        component
          ? postFollowUp({ ...reply, content: content || "(no answer)" })
          : editOriginalResponse({ ...reply, content: content || "(no answer)" }),
      )
      .catch((error: unknown) =>
        ctx.logger.warn(
          `discord: could not deliver the answer to interaction ${String(interaction.id)}: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
  };
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== settings.path)
      return problem(404, "E_DISCORD_NOT_FOUND", `expected POST ${settings.path}, got ${url.pathname}`);
    if (request.method !== "POST")
      return problem(405, "E_DISCORD_METHOD", `expected POST, got ${request.method}`, { allow: "POST" });
    const raw = await readCappedBody(request, settings.maxBodyBytes);
    if (raw === undefined) return problem(413, "E_DISCORD_TOO_LARGE", `body exceeds ${settings.maxBodyBytes} bytes`);
    const check = verifyDiscordSignature({
      body: raw,
      key: settings.publicKey,
      signature: request.headers.get("x-signature-ed25519"),
      timestamp: request.headers.get("x-signature-timestamp"),
    });
    if (!check.ok) return problem(401, "E_DISCORD_SIGNATURE", check.reason);
    let interaction: unknown;
    try {
      interaction = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      return problem(400, "E_DISCORD_BAD_JSON", "expected a JSON interaction");
    }
    if (!isJsonObject(interaction) || typeof interaction.type !== "number")
      return problem(400, "E_DISCORD_BAD_JSON", "expected an interaction object with a numeric type");
    if (interaction.type === PING) return json(200, { type: 1 });
    if (interaction.type === AUTOCOMPLETE) return json(200, { type: 8, data: { choices: [] } });
    const event = interactionToEvent(interaction);
    if (event === undefined)
      return problem(400, "E_DISCORD_UNKNOWN_INTERACTION", `interaction type ${interaction.type} is not handled`);
    const component = interaction.type === MESSAGE_COMPONENT;
    if (settings.replyWithTurnResponse) {
      answerLater(interaction, event, component);
      return json(200, { type: component ? 6 : 5 });
    }
    try {
      await ctx.emit(event);
      return json(200, { type: 4, data: { content: "Received.", flags: 64 } });
    } catch (error) {
      const failure = emitFailure(error);
      ctx.logger.warn(`discord interaction ${failure.kind}: ${failure.code} ${failure.message}`);
      return json(200, {
        type: 4,
        data: { content: `Sorry, that could not be handled (${failure.code}).`, flags: 64 },
      });
    }
  };
}

export default async function discordConnector(ctx: ConnectorContext): Promise<void> {
  const settings = discordSettings(ctx);
  const server = serveEndpoint({ settings, handler: createDiscordHandler({ ctx, settings }) });
  ctx.onShutdown(() => server.stop());
  ctx.logger.info(`discord interactions endpoint on http://${settings.host}:${server.port}${settings.path}`);
}
