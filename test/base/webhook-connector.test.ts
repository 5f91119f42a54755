import { describe, expect, it } from "bun:test";
import {
  bodyToEvent,
  createWebhookHandler,
  serveWebhook,
  webhookSettings,
  type WebhookSettings,
} from "../../src/base/connectors/webhook.ts";
import { signBody, verifySignature } from "../../src/base/connectors/webhook-signature.ts";
import type { ConnectorEvent } from "../../src/connector/connector-types.ts";

const settings = (overrides: Partial<WebhookSettings> = {}): WebhookSettings => ({
  port: 0,
  host: "127.0.0.1",
  path: "/hook",
  event: "webhook_message",
  maxBodyBytes: 1024,
  secret: undefined,
  ...overrides,
});

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

function handlerWith(
  options: { settings?: Partial<WebhookSettings>; emit?: (event: ConnectorEvent) => Promise<{ eventId: string }> } = {},
) {
  const emitted: ConnectorEvent[] = [];
  const emit =
    options.emit ??
    (async (event: ConnectorEvent) => {
      emitted.push(event);
      return { eventId: `evt_${emitted.length}` };
    });
  return {
    emitted,
    handle: createWebhookHandler({ ctx: { emit, logger: quietLogger }, settings: settings(options.settings) }),
  };
}

const post = (body: string, headers: Record<string, string> = {}, path = "/hook") =>
  new Request(`http://127.0.0.1${path}`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });

describe("verifySignature", () => {
  it("accepts the HMAC-SHA256 of the raw body made with the same secret", () => {
    const body = '{"text":"hi"}';
    expect(verifySignature({ body, secret: "s3cret", header: signBody({ body, secret: "s3cret" }) })).toEqual({
      ok: true,
    });
  });

  it("rejects a signature made with another secret, a tampered body, a malformed or a missing header", () => {
    const body = '{"text":"hi"}';
    expect(verifySignature({ body, secret: "s3cret", header: signBody({ body, secret: "other" }) }).ok).toBe(false);
    expect(
      verifySignature({ body: '{"text":"ho"}', secret: "s3cret", header: signBody({ body, secret: "s3cret" }) }).ok,
    ).toBe(false);
    expect(verifySignature({ body, secret: "s3cret", header: "sha1=abc" }).ok).toBe(false);
    expect(verifySignature({ body, secret: "s3cret", header: null }).ok).toBe(false);
  });

  it("accepts the bare hex digest without sha256=, as the public Goondan webhook does", () => {
    const body = '{"text":"hi"}';
    const bare = signBody({ body, secret: "s3cret" }).slice("sha256=".length);
    expect(verifySignature({ body, secret: "s3cret", header: bare })).toEqual({ ok: true });
    expect(verifySignature({ body, secret: "other", header: bare }).ok).toBe(false);
  });
});

describe("webhook handler", () => {
  it("answers 202 with the eventId once the event is accepted", async () => {
    const { handle, emitted } = handlerWith();
    const response = await handle(post(JSON.stringify({ text: "deploy done", repo: "web", instanceKey: "ops" })));
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ accepted: true, eventId: "evt_1" });
    expect(emitted).toEqual([
      {
        name: "webhook_message",
        message: { type: "text", text: "deploy done" },
        properties: { text: "deploy done", repo: "web", instanceKey: "ops" },
        instanceKey: "ops",
      },
    ]);
  });

  it("answers 400 for a body that is not JSON or not an object", async () => {
    const { handle, emitted } = handlerWith();
    const notJson = await handle(post("{nope"));
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).toBe("E_WEBHOOK_BAD_JSON");
    expect((await handle(post("[1,2]"))).status).toBe(400);
    expect(emitted).toEqual([]);
  });

  it("answers 404 for another path and 405 for another method", async () => {
    const { handle } = handlerWith();
    expect((await handle(post("{}", {}, "/other"))).status).toBe(404);
    const get = await handle(new Request("http://127.0.0.1/hook"));
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("answers 413 for a body larger than maxBodyBytes", async () => {
    const { handle, emitted } = handlerWith({ settings: { maxBodyBytes: 16 } });
    const response = await handle(post(JSON.stringify({ text: "x".repeat(64) })));
    expect(response.status).toBe(413);
    expect(emitted).toEqual([]);
  });

  it("answers 401 for a missing or wrong signature when a secret is set, and 202 for a right one", async () => {
    const { handle, emitted } = handlerWith({ settings: { secret: "s3cret" } });
    const body = JSON.stringify({ text: "signed" });
    expect((await handle(post(body))).status).toBe(401);
    expect((await handle(post(body, { "x-goondan-signature": signBody({ body, secret: "wrong" }) }))).status).toBe(401);
    expect((await handle(post(body, { "x-goondan-signature": signBody({ body, secret: "s3cret" }) }))).status).toBe(
      202,
    );
    expect(emitted).toHaveLength(1);
  });

  it("answers 422 when no ingress rule takes the event and 503 when the orchestrator cannot accept it", async () => {
    const refuse = (code: string) => async () => {
      throw Object.assign(new Error("refused"), { code });
    };
    expect((await handlerWith({ emit: refuse("E_CONNECTOR_NO_ROUTE") }).handle(post("{}"))).status).toBe(422);
    expect((await handlerWith({ emit: refuse("E_CONNECTOR_STOPPED") }).handle(post("{}"))).status).toBe(503);
  });
});

describe("webhook server", () => {
  it("answers a body over maxBodyBytes with its JSON 413, declared or chunked, not Bun's empty one, and still takes a small one", async () => {
    const emitted: ConnectorEvent[] = [];
    const emit = async (event: ConnectorEvent) => {
      emitted.push(event);
      return { eventId: "evt_1" };
    };
    const server = serveWebhook({ ctx: { emit, logger: quietLogger }, settings: settings({ maxBodyBytes: 100 }) });
    try {
      const url = `http://127.0.0.1:${server.port}/hook`;
      const big = JSON.stringify({ text: "x".repeat(10_000) });
      const chunked = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big.slice(0, 5000)));
          controller.enqueue(new TextEncoder().encode(big.slice(5000)));
          controller.close();
        },
      });
      for (const body of [big, chunked]) {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          duplex: "half",
        } as RequestInit);
        expect(response.status).toBe(413);
        expect(await response.json()).toMatchObject({
          error: { code: "E_WEBHOOK_TOO_LARGE", message: expect.stringContaining("100") },
        });
      }
      // A chunked body that goes past the cap and never ends: the 413 comes without waiting for its end.
      const endless = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("x".repeat(300)));
        },
      });
      const cut = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: endless,
        duplex: "half",
        signal: AbortSignal.timeout(5000),
      } as RequestInit);
      expect(cut.status).toBe(413);
      expect(((await cut.json()) as { error: { code: string } }).error.code).toBe("E_WEBHOOK_TOO_LARGE");
      expect(emitted).toEqual([]);
      const small = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: "hi" }),
      });
      expect(small.status).toBe(202);
      expect(emitted).toHaveLength(1);
    } finally {
      server.stop();
    }
  });
});

describe("webhookSettings", () => {
  it("reads lower- or upper-case config keys and the signing secret, with defaults", () => {
    expect(webhookSettings({ config: {}, secrets: {} })).toEqual({
      port: 8787,
      host: "127.0.0.1",
      path: "/webhook",
      event: "webhook_message",
      maxBodyBytes: 1048576,
      secret: undefined,
    });
    expect(webhookSettings({ config: { PORT: "9000", path: "in" }, secrets: { WEBHOOK_SECRET: "k" } })).toMatchObject({
      port: 9000,
      path: "/in",
      secret: "k",
    });
  });

  it("takes the Connection's verify.webhook.signingSecret (secrets.signingSecret) before any other secret", () => {
    expect(
      webhookSettings({ config: {}, secrets: { signingSecret: "from-verify", SIGNING_SECRET: "other" } }).secret,
    ).toBe("from-verify");
  });
});

describe("bodyToEvent", () => {
  it("adds the scalars of a properties object, the public Goondan payload shape, to the event's properties", () => {
    expect(
      bodyToEvent({ text: "hi", properties: { route: "ops", count: 2, deep: { x: 1 } } }, "webhook_message"),
    ).toEqual({
      name: "webhook_message",
      message: { type: "text", text: "hi" },
      properties: { text: "hi", route: "ops", count: 2 },
    });
  });

  it("falls back to the JSON itself as the text when no text field is given", () => {
    expect(bodyToEvent({ count: 3, nested: { a: 1 } }, "ping")).toEqual({
      name: "ping",
      message: { type: "text", text: '{"count":3,"nested":{"a":1}}' },
      properties: { count: 3 },
    });
  });
});
