/**
 * The telegram-polling connector against the loopback Bot API fake: it long-polls getUpdates, emits one
 * telegram_message per message a person sends (upstream's properties and instanceKey), confirms an update
 * only once its event was accepted or refused for good, and backs off on failures.
 */
import { afterEach, beforeEach, describe, expect, it } from "bun:test";
import {
  pollTelegram,
  telegramPollingSettings,
  updateToEvent,
  type TelegramPollingSettings,
} from "../../src/base/connectors/telegram-polling.ts";
import type { ConnectorEvent } from "../../src/connector/connector-types.ts";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram.ts";
import { until } from "../helpers/goondan-process.ts";

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };
let fake: FakeTelegram;
let controller: AbortController;
let polling: Promise<void> | undefined;

beforeEach(async () => {
  fake = await startFakeTelegram();
  controller = new AbortController();
  polling = undefined;
});
afterEach(async () => {
  controller.abort();
  await polling;
  await fake.close();
});

function settings(overrides: Partial<TelegramPollingSettings> = {}): TelegramPollingSettings {
  return {
    token: fake.token,
    baseUrl: fake.url,
    pollTimeoutSeconds: 1,
    requestTimeoutMs: 5000,
    retryDelayMs: 10,
    initialOffset: 0,
    ...overrides,
  };
}

function start(
  emit: (event: ConnectorEvent) => Promise<{ eventId: string }>,
  overrides: Partial<TelegramPollingSettings> = {},
) {
  polling = pollTelegram({
    ctx: { emit, logger: quietLogger, signal: controller.signal },
    settings: settings(overrides),
  });
}

describe("telegram-polling", () => {
  it("emits a telegram_message per user message with upstream's properties and instanceKey", async () => {
    const emitted: ConnectorEvent[] = [];
    start(async (event) => {
      emitted.push(event);
      return { eventId: `evt_${emitted.length}` };
    });
    const updateId = fake.sendUserMessage({ chatId: 4242, text: "hello bot", username: "alice" });
    await until(() => emitted.length === 1);
    expect(emitted[0]).toEqual({
      name: "telegram_message",
      message: { type: "text", text: "hello bot" },
      properties: expect.objectContaining({
        update_id: String(updateId),
        chat_id: "4242",
        chat_type: "private",
        from_username: "alice",
        from_id: "4242",
      }),
      instanceKey: "telegram:4242",
    });
    expect(typeof emitted[0]?.properties.message_id).toBe("string");
    await until(() => fake.callsOf("getUpdates").some((call) => call.payload.offset === updateId + 1));
    expect(fake.rejected).toEqual([]);
  });

  it("skips messages from bots and updates with nothing to say, and describes photos by file id", () => {
    expect(
      updateToEvent({
        update_id: 1,
        message: { message_id: 1, chat: { id: 5 }, from: { id: 9, is_bot: true }, text: "beep" },
      }),
    ).toBeUndefined();
    expect(updateToEvent({ update_id: 2, edited_message: { chat: { id: 5 }, text: "edit" } })).toBeUndefined();
    const photo = updateToEvent({
      update_id: 3,
      message: {
        message_id: 2,
        chat: { id: -100, type: "group", title: "Team" },
        from: { id: 7 },
        caption: "look",
        photo: [
          { file_id: "small", width: 90, height: 90 },
          { file_id: "large", width: 800, height: 600, file_size: 5000 },
        ],
      },
    });
    expect(photo?.message).toEqual({ type: "text", text: "look\n[telegram_photo] file_id=large" });
    expect(photo?.properties).toMatchObject({
      chat_id: "-100",
      chat_title: "Team",
      photo_file_id: "large",
      has_photo: "true",
      photo_file_size: "5000",
    });
  });

  it("confirms a refused update (no route) and moves on, but polls an unaccepted one again", async () => {
    const attempts: string[] = [];
    let unavailableOnce = true;
    start(async (event) => {
      attempts.push(event.message.type === "text" ? event.message.text : "");
      if (event.message.type === "text" && event.message.text === "nobody routes me")
        throw Object.assign(new Error("no rule"), { code: "E_CONNECTOR_NO_ROUTE" });
      if (unavailableOnce) {
        unavailableOnce = false;
        throw Object.assign(new Error("shutting down"), { code: "E_CONNECTOR_STOPPED" });
      }
      return { eventId: "evt" };
    });
    fake.sendUserMessage({ chatId: 1, text: "nobody routes me" });
    fake.sendUserMessage({ chatId: 1, text: "second" });
    await until(() => attempts.filter((text) => text === "second").length === 2);
    expect(attempts).toEqual(["nobody routes me", "second", "second"]);
  });

  it("waits out Telegram's retry_after and keeps polling after errors", async () => {
    fake.failNext("getUpdates", { errorCode: 429, description: "Too Many Requests: retry after 1", retryAfter: 1 });
    fake.failNext("getUpdates", { errorCode: 502, description: "Bad Gateway" });
    const emitted: ConnectorEvent[] = [];
    const started = Date.now();
    start(async (event) => {
      emitted.push(event);
      return { eventId: "evt" };
    });
    fake.sendUserMessage({ chatId: 2, text: "after the storm" });
    await until(() => emitted.length === 1, { timeoutMs: 10_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("reads upstream's config and secret names, and refuses to start without a token", () => {
    const read = telegramPollingSettings({
      secrets: { TELEGRAM_BOT_TOKEN: "1:abc" },
      config: {
        TELEGRAM_POLL_TIMEOUT_SECONDS: "10",
        TELEGRAM_RETRY_DELAY_MS: "250",
        TELEGRAM_API_BASE_URL: "http://127.0.0.1:9/",
      },
    });
    expect(read).toEqual({
      token: "1:abc",
      baseUrl: "http://127.0.0.1:9",
      pollTimeoutSeconds: 10,
      requestTimeoutMs: 15_000,
      retryDelayMs: 250,
      initialOffset: 0,
    });
    expect(() => telegramPollingSettings({ secrets: {}, config: {} })).toThrow(/TELEGRAM_BOT_TOKEN/);
  });
});
