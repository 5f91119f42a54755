/**
 * A loopback fake of Slack (Bun.serve on 127.0.0.1, port 0), both directions. The Web API side (`<url>/api`)
 * checks what Slack checks: `Authorization: Bearer <bot token>`, JSON bodies for write methods and form bodies
 * for conversations.history/replies, the fields each method needs; it keeps channels' messages (so read finds
 * what send posted) and answers Slack's `{ok: false, error}` for refusals, which are also listed in `rejected`.
 * Private files registered with `addFile` are served at `<url>/files/<name>` to the bearer only. The Events
 * side sends signed Events API requests to a connector (`deliverEvent`, `urlVerification`), the way Slack
 * signs them: `v0=` HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing secret.
 */
import { createHmac } from "node:crypto";

export interface SlackCall {
  method: string;
  payload: Record<string, unknown>;
  contentType: string;
}

export interface FakeSlack {
  url: string;
  /** The Web API base URL (`config.apiBaseUrl` / GOONDAN_SLACK_API_BASE_URL). */
  apiUrl: string;
  token: string;
  signingSecret: string;
  calls: SlackCall[];
  rejected: { method: string; error: string }[];
  callsOf(method: string): SlackCall[];
  /** Messages Slack holds for a channel (posted by the bot or seeded). */
  messages(channel: string): Record<string, unknown>[];
  seedMessage(channel: string, message: Record<string, unknown>): void;
  addFile(options: { name: string; bytes: Uint8Array; contentType: string }): string;
  failNext(method: string, error: string, status?: number): void;
  /** POSTs a signed event_callback wrapping `event` to `target`; returns the response and the body sent. */
  deliverEvent(
    target: string,
    event: Record<string, unknown>,
    options?: { signingSecret?: string; timestamp?: number; eventId?: string; headers?: Record<string, string> },
  ): Promise<{ response: Response; body: string }>;
  urlVerification(target: string, challenge: string): Promise<Response>;
  close(): Promise<void>;
}

const WRITE_METHODS = new Set(["chat.postMessage", "chat.update", "chat.delete", "reactions.add"]);
const READ_METHODS = new Set(["conversations.history", "conversations.replies"]);

/** The signature headers Slack puts on a request body. */
export function slackSignature(options: { body: string; secret: string; timestamp: number }): Record<string, string> {
  const signature = `v0=${createHmac("sha256", options.secret).update(`v0:${options.timestamp}:${options.body}`).digest("hex")}`;
  return { "x-slack-signature": signature, "x-slack-request-timestamp": String(options.timestamp) };
}

export async function startFakeSlack(
  options: { token?: string; signingSecret?: string; channels?: string[] } = {},
): Promise<FakeSlack> {
  const token = options.token ?? "xoxb-test-slack-token";
  const signingSecret = options.signingSecret ?? "slack-signing-secret";
  const channels = new Map<string, Record<string, unknown>[]>(
    (options.channels ?? ["C0GENERAL", "D0DIRECT"]).map((channel) => [channel, []]),
  );
  const calls: SlackCall[] = [];
  const rejected: { method: string; error: string }[] = [];
  const files = new Map<string, { bytes: Uint8Array; contentType: string }>();
  const failures = new Map<string, { error: string; status: number }[]>();
  let clock = 1_700_000_000;
  const nextTs = () => `${++clock}.000100`;

  const refuse = (method: string, error: string, status = 200) => {
    rejected.push({ method, error });
    return Response.json({ ok: false, error }, { status });
  };
  const channelOf = (payload: Record<string, unknown>) => channels.get(String(payload.channel));

  const answer = (method: string, payload: Record<string, unknown>): Record<string, unknown> | string => {
    const messages = channelOf(payload);
    if (messages === undefined) return "channel_not_found";
    const find = (ts: unknown) => messages.find((message) => message.ts === ts);
    switch (method) {
      case "chat.postMessage": {
        if (typeof payload.text !== "string" || payload.text === "") return "no_text";
        const message: Record<string, unknown> = {
          type: "message",
          user: "UBOT",
          bot_id: "B1",
          text: payload.text,
          ts: nextTs(),
          ...(typeof payload.thread_ts === "string" ? { thread_ts: payload.thread_ts } : {}),
        };
        messages.push(message);
        return { channel: payload.channel as string, ts: message.ts as string, message };
      }
      case "chat.update": {
        const message = find(payload.ts);
        if (message === undefined) return "message_not_found";
        message.text = payload.text;
        return { channel: payload.channel as string, ts: message.ts as string, text: payload.text as string };
      }
      case "chat.delete": {
        const index = messages.findIndex((message) => message.ts === payload.ts);
        if (index < 0) return "message_not_found";
        messages.splice(index, 1);
        return { channel: payload.channel as string, ts: payload.ts as string };
      }
      case "reactions.add": {
        const message = find(payload.timestamp);
        if (message === undefined) return "message_not_found";
        if (typeof payload.name !== "string" || /[:\s]/.test(payload.name)) return "invalid_name";
        message.reactions = [
          ...((message.reactions as unknown[]) ?? []),
          { name: payload.name, users: ["UBOT"], count: 1 },
        ];
        return {};
      }
      case "conversations.history": {
        const latest = typeof payload.latest === "string" ? Number(payload.latest) : Number.POSITIVE_INFINITY;
        const inclusive = payload.inclusive === "true";
        const limit = Number(payload.limit ?? 100);
        const picked = [...messages]
          .reverse()
          .filter((message) => (inclusive ? Number(message.ts) <= latest : Number(message.ts) < latest))
          .slice(0, limit);
        return { messages: picked, has_more: false };
      }
      case "conversations.replies": {
        const thread = messages.filter((message) => message.ts === payload.ts || message.thread_ts === payload.ts);
        return { messages: thread, has_more: false };
      }
      default:
        return "unknown_method";
    }
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const url = new URL(request.url);
      const authorized = request.headers.get("authorization") === `Bearer ${token}`;
      const fileMatch = /^\/files\/(.+)$/.exec(url.pathname);
      if (fileMatch) {
        if (!authorized) return refuse(url.pathname, "not_authed", 403);
        const file = files.get(decodeURIComponent(fileMatch[1] ?? ""));
        if (file === undefined) return new Response("not found", { status: 404 });
        return new Response(file.bytes, {
          headers: {
            "content-type": file.contentType,
            "content-length": String(file.bytes.byteLength),
            etag: '"fake-etag"',
          },
        });
      }
      const method = url.pathname.replace(/^\/api\//, "");
      if (!url.pathname.startsWith("/api/") || (!WRITE_METHODS.has(method) && !READ_METHODS.has(method)))
        return refuse(method, "unknown_method", 404);
      if (request.method !== "POST") return refuse(method, "method_not_supported_for_channel_type", 405);
      if (!authorized) return refuse(method, request.headers.get("authorization") ? "invalid_auth" : "not_authed");
      const contentType = request.headers.get("content-type") ?? "";
      let payload: Record<string, unknown>;
      if (WRITE_METHODS.has(method)) {
        if (!contentType.startsWith("application/json")) return refuse(method, "invalid_form_data");
        payload = (await request.json()) as Record<string, unknown>;
      } else {
        if (!contentType.startsWith("application/x-www-form-urlencoded")) return refuse(method, "invalid_arguments");
        payload = Object.fromEntries(new URLSearchParams(await request.text()));
      }
      calls.push({ method, payload, contentType });
      const failure = failures.get(method)?.shift();
      if (failure !== undefined)
        return Response.json(
          { ok: false, error: failure.error },
          { status: failure.status, headers: failure.status === 429 ? { "retry-after": "7" } : {} },
        );
      const result = answer(method, payload);
      if (typeof result === "string") return refuse(method, result);
      return Response.json({ ok: true, ...result });
    },
  });
  const base = `http://127.0.0.1:${server.port}`;

  const deliver = async (
    target: string,
    body: string,
    secret: string,
    timestamp: number,
    headers: Record<string, string> = {},
  ) =>
    fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json", ...slackSignature({ body, secret, timestamp }), ...headers },
      body,
    });

  return {
    url: base,
    apiUrl: `${base}/api`,
    token,
    signingSecret,
    calls,
    rejected,
    callsOf: (method) => calls.filter((call) => call.method === method),
    messages: (channel) => channels.get(channel) ?? [],
    seedMessage: (channel, message) => {
      if (!channels.has(channel)) channels.set(channel, []);
      channels.get(channel)?.push({ type: "message", ts: nextTs(), ...message });
    },
    addFile: ({ name, bytes, contentType }) => {
      files.set(name, { bytes, contentType });
      return `${base}/files/${encodeURIComponent(name)}`;
    },
    failNext: (method, error, status = 200) =>
      void failures.set(method, [...(failures.get(method) ?? []), { error, status }]),
    deliverEvent: async (target, event, deliveryOptions = {}) => {
      const body = JSON.stringify({
        token: "verification-token-unused",
        team_id: "T0TEAM",
        api_app_id: "A0APP",
        type: "event_callback",
        event_id: deliveryOptions.eventId ?? `Ev${++clock}`,
        event_time: clock,
        event,
      });
      const response = await deliver(
        target,
        body,
        deliveryOptions.signingSecret ?? signingSecret,
        deliveryOptions.timestamp ?? Math.floor(Date.now() / 1000),
        deliveryOptions.headers,
      );
      return { response, body };
    },
    urlVerification: (target, challenge) =>
      deliver(
        target,
        JSON.stringify({ token: "unused", challenge, type: "url_verification" }),
        signingSecret,
        Math.floor(Date.now() / 1000),
      ),
    close: () => server.stop(true),
  };
}
