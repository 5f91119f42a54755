/**
 * The built-in `webhook` connector: an HTTP server taking POSTed JSON on one path. With a signing secret
 * (the Connection's `verify.webhook.signingSecret`, which arrives as `secrets.signingSecret`, or
 * `SIGNING_SECRET` / `WEBHOOK_SECRET` in its secrets) every request must carry
 * `x-goondan-signature: sha256=<hmac hex of the raw body>`. It answers 202 `{accepted, eventId}` as
 * soon as the orchestrator has durably accepted the event, and a 4xx `{error: {code, message}}` for a
 * wrong path or method, a body too large (413, checked on Content-Length and again while the body
 * streams in, so a chunked body is cut off at the cap), bad JSON or a bad signature.
 *
 * Config: `port` (default 8787), `host` (default 127.0.0.1), `path` (default /webhook), `event`
 * (the event name, default `webhook_message`, the public Goondan name; rules written for the older
 * `webhook` still match it), `maxBodyBytes` (default 1 MiB). The event's text is the body's `text`,
 * `input` or `message` string, else the JSON itself; its properties are the body's top-level strings,
 * numbers and booleans, plus those of its `properties` object (the public Goondan payload shape); its
 * instanceKey is the body's `instanceKey` when given.
 */
import type { ConnectorContext, ConnectorEvent } from "../../connector/connector-types.ts";
import { configValue } from "./config-value.ts";
import { json, problem, readCappedBody } from "./http-endpoint.ts";
import { SIGNATURE_HEADER, verifySignature } from "./webhook-signature.ts";

/** The event a body becomes unless the Connection's `config.event` renames it. */
export const WEBHOOK_EVENT = "webhook_message";

export interface WebhookSettings {
  port: number;
  host: string;
  path: string;
  event: string;
  maxBodyBytes: number;
  secret: string | undefined;
}

export function webhookSettings(ctx: Pick<ConnectorContext, "config" | "secrets">): WebhookSettings {
  const { config, secrets } = ctx;
  const number = (value: unknown, fallback: number): number => {
    const parsed = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
    return Number.isFinite(parsed) && parsed >= 0 ? parsed : fallback;
  };
  const path = String(configValue(config, "path", "PATH") ?? "/webhook");
  return {
    port: number(configValue(config, "port", "PORT"), 8787),
    host: String(configValue(config, "host", "HOST") ?? "127.0.0.1"),
    path: path.startsWith("/") ? path : `/${path}`,
    event: String(configValue(config, "event", "EVENT") ?? WEBHOOK_EVENT),
    maxBodyBytes: number(configValue(config, "maxBodyBytes", "MAX_BODY_BYTES"), 1024 * 1024),
    secret: secrets.signingSecret ?? secrets.SIGNING_SECRET ?? secrets.WEBHOOK_SECRET ?? secrets.secret,
  };
}

/** Turns a JSON body into the connector event it stands for. */
export function bodyToEvent(body: Record<string, unknown>, eventName: string): ConnectorEvent {
  const textField = [body.text, body.input, body.message].find((value): value is string => typeof value === "string");
  const properties: ConnectorEvent["properties"] = {};
  const nested =
    body.properties !== null && typeof body.properties === "object" && !Array.isArray(body.properties)
      ? (body.properties as Record<string, unknown>)
      : {};
  for (const [key, value] of [...Object.entries(body), ...Object.entries(nested)]) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") properties[key] = value;
  }
  return {
    name: eventName,
    message: { type: "text", text: textField ?? JSON.stringify(body) },
    properties,
    ...(typeof body.instanceKey === "string" && body.instanceKey !== "" ? { instanceKey: body.instanceKey } : {}),
  };
}

/** The request handler, separate from the server so it can be tested with plain Requests. */
export function createWebhookHandler(options: {
  ctx: Pick<ConnectorContext, "emit" | "logger">;
  settings: WebhookSettings;
}) {
  const { ctx, settings } = options;
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== settings.path)
      return problem(404, "E_WEBHOOK_NOT_FOUND", `expected POST ${settings.path}, got ${url.pathname}`);
    if (request.method !== "POST")
      return problem(405, "E_WEBHOOK_METHOD", `expected POST, got ${request.method}`, { allow: "POST" });
    const declared = Number(request.headers.get("content-length") ?? "0");
    if (declared > settings.maxBodyBytes)
      return problem(413, "E_WEBHOOK_TOO_LARGE", `body of ${declared} bytes exceeds ${settings.maxBodyBytes}`);
    const raw = await readCappedBody(request, settings.maxBodyBytes);
    if (raw === undefined) return problem(413, "E_WEBHOOK_TOO_LARGE", `body exceeds ${settings.maxBodyBytes} bytes`);
    if (settings.secret !== undefined) {
      const check = verifySignature({
        body: raw,
        secret: settings.secret,
        header: request.headers.get(SIGNATURE_HEADER),
      });
      if (!check.ok) {
        ctx.logger.warn("webhook signature rejected", check.reason);
        return problem(401, "E_WEBHOOK_SIGNATURE", check.reason);
      }
    }
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      return problem(400, "E_WEBHOOK_BAD_JSON", "expected a JSON body");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return problem(400, "E_WEBHOOK_BAD_JSON", "expected a JSON object body");
    try {
      const { eventId } = await ctx.emit(bodyToEvent(body as Record<string, unknown>, settings.event));
      return json(202, { accepted: true, eventId });
    } catch (error) {
      const code =
        typeof (error as { code?: unknown }).code === "string"
          ? (error as { code: string }).code
          : "E_WEBHOOK_NOT_ACCEPTED";
      const message = error instanceof Error ? error.message : String(error);
      return problem(
        code === "E_CONNECTOR_NO_ROUTE" || code === "E_CONNECTOR_EVENT_INVALID"
          ? 422
          : code === "E_SIGNAL_NOT_FOUND"
            ? 404
            : 503,
        code,
        message,
      );
    }
  };
}

/** The webhook's HTTP server (stopping it drops open connections). */
export function serveWebhook(options: { ctx: Pick<ConnectorContext, "emit" | "logger">; settings: WebhookSettings }): {
  port: number;
  stop(): void;
} {
  const { settings } = options;
  const handler = createWebhookHandler(options);
  // Bun's own limit would answer an empty 413 before the handler runs: the handler caps the body itself.
  const server = Bun.serve({
    port: settings.port,
    hostname: settings.host,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch: handler,
  });
  return { port: server.port ?? settings.port, stop: () => server.stop(true) };
}

export default async function webhookConnector(ctx: ConnectorContext): Promise<void> {
  const settings = webhookSettings(ctx);
  const server = serveWebhook({ ctx, settings });
  ctx.onShutdown(() => server.stop());
  ctx.logger.info(
    `webhook listening on http://${settings.host}:${server.port}${settings.path}${settings.secret ? " (signed)" : ""}`,
  );
}
