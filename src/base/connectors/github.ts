/**
 * The built-in `github` connector: an HTTP endpoint for GitHub webhooks. With a secret set, every delivery must
 * carry a valid `X-Hub-Signature-256` (sha256 HMAC of the raw body; unsigned or badly signed deliveries get
 * 401); `ping` is answered without an event; a delivery GitHub sends again (same X-GitHub-Delivery) is emitted
 * once. Events follow upstream Goondan: `github_push`, `github_pull_request`, `github_issue`,
 * `github_issue_comment` (else `github_<event>`), with properties event, action, repo, sender, ref, number and
 * instanceKey `github:<owner/repo>`; the text is the commit message, PR or issue title, or comment body.
 *
 * Config: GITHUB_WEBHOOK_PORT / port (8787), host (127.0.0.1), GITHUB_WEBHOOK_PATH / path (`/`),
 * maxBodyBytes (25 MiB, GitHub's own cap). Secrets: GITHUB_WEBHOOK_SECRET (or signingSecret, SIGNING_SECRET).
 */
import { isJsonObject, type JsonObject } from "../../shared/json.ts";
import type { ConnectorContext, ConnectorEvent } from "../../connector/connector-types.ts";
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
import { verifySignature } from "./webhook-signature.ts";

export const GITHUB_SIGNATURE_HEADER = "x-hub-signature-256";

export interface GithubSettings extends EndpointSettings {
  secret: string | undefined;
}

export function githubSettings(ctx: Pick<ConnectorContext, "config" | "secrets">): GithubSettings {
  return {
    ...endpointSettings(ctx.config, {
      portKeys: ["GITHUB_WEBHOOK_PORT"],
      pathKeys: ["GITHUB_WEBHOOK_PATH", "path", "PATH"],
      defaultPath: "/",
      defaultMaxBodyBytes: 25 * 1024 * 1024,
    }),
    secret: [
      ctx.secrets.GITHUB_WEBHOOK_SECRET,
      ctx.secrets.signingSecret,
      ctx.secrets.SIGNING_SECRET,
      ctx.secrets.WEBHOOK_SECRET,
    ].find((value) => typeof value === "string" && value !== ""),
  };
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);
const record = (value: unknown): JsonObject | undefined => (isJsonObject(value) ? value : undefined);

/** The event a delivery stands for (`eventType` is the X-GitHub-Event header). */
export function githubDeliveryToEvent(eventType: string, payload: JsonObject): ConnectorEvent {
  const action = text(payload.action);
  const repo = text(record(payload.repository)?.full_name);
  const properties: Record<string, string> = { event: eventType };
  if (action) properties.action = action;
  if (repo) properties.repo = repo;
  const sender = text(record(payload.sender)?.login);
  if (sender) properties.sender = sender;
  let name = `github_${eventType}`;
  let body: string;
  const numbered = (item: JsonObject | undefined, fallback: string) => {
    if (typeof item?.number === "number") properties.number = String(item.number);
    return text(item?.title) ?? fallback;
  };
  switch (eventType) {
    case "push": {
      const ref = text(payload.ref);
      if (ref) properties.ref = ref;
      body = text(record(payload.head_commit)?.message) ?? `push to ${ref ?? "unknown"}`;
      break;
    }
    case "pull_request":
      body = numbered(record(payload.pull_request), `PR ${action ?? ""}`.trim());
      break;
    case "issues":
      name = "github_issue";
      body = numbered(record(payload.issue), `Issue ${action ?? ""}`.trim());
      break;
    case "issue_comment":
      numbered(record(payload.issue), "");
      body = text(record(payload.comment)?.body) ?? "comment";
      break;
    default:
      body = `${eventType}${action ? ` ${action}` : ""}`;
  }
  return { name, message: { type: "text", text: body }, properties, instanceKey: `github:${repo ?? eventType}` };
}

/** The delivery's JSON: a JSON body, or the `payload` field of a form-encoded one. */
function parsePayload(raw: Uint8Array, contentType: string): unknown {
  const body = new TextDecoder().decode(raw);
  if (contentType.startsWith("application/x-www-form-urlencoded"))
    return JSON.parse(new URLSearchParams(body).get("payload") ?? "");
  return JSON.parse(body);
}

/** The request handler, separate from the server so it can be tested with plain Requests. */
export function createGithubHandler(options: {
  ctx: Pick<ConnectorContext, "emit" | "logger">;
  settings: GithubSettings;
}) {
  const { ctx, settings } = options;
  const recent = new RecentKeys();
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== settings.path)
      return problem(404, "E_GITHUB_NOT_FOUND", `expected POST ${settings.path}, got ${url.pathname}`);
    if (request.method !== "POST")
      return problem(405, "E_GITHUB_METHOD", `expected POST, got ${request.method}`, { allow: "POST" });
    const raw = await readCappedBody(request, settings.maxBodyBytes);
    if (raw === undefined) return problem(413, "E_GITHUB_TOO_LARGE", `body exceeds ${settings.maxBodyBytes} bytes`);
    if (settings.secret !== undefined) {
      const check = verifySignature({
        body: raw,
        secret: settings.secret,
        header: request.headers.get(GITHUB_SIGNATURE_HEADER),
        headerName: "X-Hub-Signature-256",
      });
      if (!check.ok) {
        ctx.logger.warn("github delivery signature rejected", check.reason);
        return problem(401, "E_GITHUB_SIGNATURE", check.reason);
      }
    }
    const eventType = request.headers.get("x-github-event");
    if (!eventType) return problem(400, "E_GITHUB_NO_EVENT", "missing X-GitHub-Event header");
    let payload: unknown;
    try {
      payload = parsePayload(raw, request.headers.get("content-type") ?? "application/json");
    } catch {
      return problem(400, "E_GITHUB_BAD_JSON", "expected a JSON payload");
    }
    if (!isJsonObject(payload)) return problem(400, "E_GITHUB_BAD_JSON", "expected a JSON object payload");
    if (eventType === "ping") return json(200, { ok: true, pong: true });
    const delivery = request.headers.get("x-github-delivery");
    if (delivery !== null && recent.seen(delivery)) return json(200, { ok: true, duplicate: true });
    try {
      const { eventId } = await ctx.emit(githubDeliveryToEvent(eventType, payload));
      return json(202, { accepted: true, eventId });
    } catch (error) {
      const failure = emitFailure(error);
      ctx.logger.warn(`github delivery ${failure.kind}: ${failure.code} ${failure.message}`);
      if (delivery !== null) recent.forget(delivery);
      return problem(failure.kind === "refused" ? 422 : 503, failure.code, failure.message);
    }
  };
}

export default async function githubConnector(ctx: ConnectorContext): Promise<void> {
  const settings = githubSettings(ctx);
  const server = serveEndpoint({ settings, handler: createGithubHandler({ ctx, settings }) });
  ctx.onShutdown(() => server.stop());
  if (settings.secret === undefined)
    ctx.logger.warn(
      "github: no GITHUB_WEBHOOK_SECRET in the Connection's secrets; deliveries are not verified, so anyone who can reach the port can send events",
    );
  ctx.logger.info(
    `github webhook endpoint on http://${settings.host}:${server.port}${settings.path}${settings.secret ? " (signed)" : ""}`,
  );
}
