/**
 * The slack connector: its Events API endpoint answers Slack's url_verification, checks signatures (the fake
 * signs as Slack does), emits upstream's app_mention / message_im events once each, and ignores bots.
 */
import { afterEach, beforeEach, describe, expect, it } from "bun:test";
import type { ConnectorEvent } from "../../src/connector/connector-types.ts";
import { serveEndpoint } from "../../src/base/connectors/http-endpoint.ts";
import {
  createSlackHandler,
  slackEventToConnectorEvent,
  slackSettings,
  type SlackSettings,
} from "../../src/base/connectors/slack.ts";
import { verifySlackSignature } from "../../src/base/connectors/slack-signature.ts";
import { slackSignature, startFakeSlack, type FakeSlack } from "../helpers/fake-slack.ts";

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };
let fake: FakeSlack;
let server: { port: number; stop(): void } | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
});
afterEach(async () => {
  server?.stop();
  server = undefined;
  await fake.close();
});

function serve(
  options: { settings?: Partial<SlackSettings>; emit?: (event: ConnectorEvent) => Promise<{ eventId: string }> } = {},
) {
  const emitted: ConnectorEvent[] = [];
  const emit =
    options.emit ?? (async (event: ConnectorEvent) => (emitted.push(event), { eventId: `evt_${emitted.length}` }));
  const settings: SlackSettings = {
    port: 0,
    host: "127.0.0.1",
    path: "/slack/events",
    maxBodyBytes: 64 * 1024,
    messageMode: "all",
    signingSecret: fake.signingSecret,
    ...options.settings,
  };
  server = serveEndpoint({ settings, handler: createSlackHandler({ ctx: { emit, logger: quietLogger }, settings }) });
  return { emitted, target: `http://127.0.0.1:${server.port}/slack/events` };
}

const mention = {
  type: "app_mention",
  user: "U1",
  text: "<@UBOT> summarise the thread",
  ts: "1700000001.000100",
  channel: "C0GENERAL",
  event_ts: "1700000001.000100",
};

describe("slack connector", () => {
  it("answers Slack's url_verification challenge", async () => {
    const { target } = serve();
    const response = await fake.urlVerification(target, "challenge-abc");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("challenge-abc");
  });

  it("emits app_mention with upstream's properties and a per-thread instanceKey", async () => {
    const { target, emitted } = serve();
    const { response } = await fake.deliverEvent(target, { ...mention, thread_ts: "1700000000.000001" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, eventId: "evt_1" });
    expect(emitted).toEqual([
      {
        name: "app_mention",
        message: { type: "text", text: "<@UBOT> summarise the thread" },
        properties: { channel_id: "C0GENERAL", ts: "1700000001.000100", thread_ts: "1700000000.000001", user_id: "U1" },
        instanceKey: "slack:C0GENERAL:1700000000.000001",
      },
    ]);
  });

  it("emits a direct message as message_im, with shared files described", async () => {
    const { target, emitted } = serve();
    await fake.deliverEvent(target, {
      type: "message",
      channel_type: "im",
      user: "U2",
      text: "see attached",
      ts: "1700000002.000200",
      channel: "D0DIRECT",
      files: [
        {
          id: "F1",
          name: "plot.png",
          mimetype: "image/png",
          url_private: "https://files.slack.com/files-pri/T/plot.png",
        },
        {
          id: "F2",
          title: "notes.txt",
          filetype: "text",
          url_private_download: "https://files.slack.com/files-pri/T/notes.txt",
        },
      ],
    });
    expect(emitted[0]).toMatchObject({
      name: "message_im",
      message: {
        text: "see attached\n[image:plot.png] https://files.slack.com/files-pri/T/plot.png\n[file:notes.txt] https://files.slack.com/files-pri/T/notes.txt",
      },
      properties: {
        channel_id: "D0DIRECT",
        channel_type: "im",
        attachment_count: "2",
        image_url: "https://files.slack.com/files-pri/T/plot.png",
        file_url: "https://files.slack.com/files-pri/T/notes.txt",
        file_name: "notes.txt",
      },
      instanceKey: "slack:D0DIRECT:1700000002.000200",
    });
  });

  it("emits a retried delivery, or a mention that also arrives as a message, once", async () => {
    const { target, emitted } = serve();
    await fake.deliverEvent(target, mention, { eventId: "Ev1" });
    const retry = await fake.deliverEvent(target, mention, { eventId: "Ev1", headers: { "x-slack-retry-num": "1" } });
    expect(await retry.response.json()).toEqual({ ok: true, duplicate: true });
    await fake.deliverEvent(target, { ...mention, type: "message" }, { eventId: "Ev2" });
    expect(emitted).toHaveLength(1);
  });

  it("ignores bot messages, edits, and plain messages in mention mode", async () => {
    const { target, emitted } = serve({ settings: { messageMode: "mention" } });
    const bot = await fake.deliverEvent(target, {
      type: "app_mention",
      bot_id: "B1",
      text: "echo",
      ts: "1.1",
      channel: "C0GENERAL",
    });
    expect(await bot.response.json()).toEqual({ ok: true, ignored: true });
    await fake.deliverEvent(target, { type: "message", text: "hi", ts: "1.2", channel: "C0GENERAL" });
    expect(emitted).toEqual([]);
    expect(
      slackEventToConnectorEvent(
        { event: { type: "message", subtype: "message_changed", channel: "C", ts: "1", text: "x" } },
        "all",
      ),
    ).toBeUndefined();
  });

  it("refuses a wrong, missing or stale signature with 401", async () => {
    const { target, emitted } = serve();
    expect((await fake.deliverEvent(target, mention, { signingSecret: "not-the-secret" })).response.status).toBe(401);
    expect(
      (await fake.deliverEvent(target, mention, { timestamp: Math.floor(Date.now() / 1000) - 600 })).response.status,
    ).toBe(401);
    const unsigned = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "event_callback", event: mention }),
    });
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as { error: { code: string } }).error.code).toBe("E_SLACK_SIGNATURE");
    expect(emitted).toEqual([]);
    const body = "{}";
    expect(
      verifySlackSignature({
        body,
        secret: "s",
        nowSeconds: 1000,
        ...headerPair(slackSignature({ body, secret: "s", timestamp: 1000 })),
      }),
    ).toEqual({ ok: true });
  });

  it("answers 200 (ignored) when no rule routes the event, and 503 when the orchestrator cannot take it, so Slack retries only then", async () => {
    let calls = 0;
    const { target } = serve({
      emit: async () => {
        calls += 1;
        throw Object.assign(new Error(calls === 1 ? "no rule" : "stopping"), {
          code: calls === 1 ? "E_CONNECTOR_NO_ROUTE" : "E_CONNECTOR_STOPPED",
        });
      },
    });
    expect(await (await fake.deliverEvent(target, mention)).response.json()).toEqual({
      ok: true,
      ignored: true,
      reason: "E_CONNECTOR_NO_ROUTE",
    });
    expect((await fake.deliverEvent(target, { ...mention, ts: "2.2" })).response.status).toBe(503);
  });

  it("reads upstream's config names and secrets", () => {
    expect(
      slackSettings({
        config: { SLACK_WEBHOOK_PORT: "3102", SLACK_MESSAGE_MODE: "mention" },
        secrets: { SLACK_SIGNING_SECRET: "shh" },
      }),
    ).toMatchObject({ port: 3102, path: "/", host: "127.0.0.1", messageMode: "mention", signingSecret: "shh" });
  });
});

function headerPair(headers: Record<string, string>) {
  return { signature: headers["x-slack-signature"] ?? null, timestamp: headers["x-slack-request-timestamp"] ?? null };
}
