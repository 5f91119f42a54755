/**
 * The built-in `telegram` tool against the loopback Telegram Bot API fake: every export sends what the Bot API
 * expects (checked by the fake), returns upstream's result shape, and turns Telegram's refusals into coded
 * errors that never show the bot token.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { splitText } from "../../src/base/tools/telegram.ts";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram.ts";
import { baseTools, type BaseToolHarness } from "./base-tools.ts";

let fake: FakeTelegram;
let tools: BaseToolHarness;
let workdir: string;

beforeAll(async () => {
  fake = await startFakeTelegram();
  workdir = mkdtempSync(join(tmpdir(), "goondan-telegram-"));
  tools = await baseTools({ config: { telegram: { token: fake.token, apiBaseUrl: fake.url } }, context: { workdir } });
});
afterAll(() => fake.close());

const output = (result: { status: string; output?: unknown }) => {
  expect(result.status).toBe("ok");
  return result.output as Record<string, unknown>;
};

describe("telegram tool", () => {
  it("sends a message with the chat id, text and options the Bot API takes", async () => {
    const result = output(
      await tools.call("telegram__send", {
        chatId: 4242,
        text: "*hi*",
        parseMode: "markdown",
        disableNotification: true,
        replyToMessageId: "7",
      }),
    );
    expect(result).toMatchObject({ ok: true, chatId: "4242", text: "*hi*" });
    expect(typeof result.messageId).toBe("number");
    expect(fake.callsOf("sendMessage").at(-1)?.payload).toEqual({
      chat_id: "4242",
      text: "*hi*",
      parse_mode: "Markdown",
      disable_notification: true,
      reply_parameters: { message_id: 7 },
    });
    expect(fake.rejected).toEqual([]);
  });

  it("splits text longer than Telegram's 4096 characters into several messages", async () => {
    const before = fake.callsOf("sendMessage").length;
    const long = `${"a".repeat(3000)}\n${"b".repeat(3000)}`;
    const result = output(await tools.call("telegram__send", { chatId: "-100", text: long }));
    const sent = fake
      .callsOf("sendMessage")
      .slice(before)
      .map((call) => call.payload.text);
    expect(sent).toEqual(["a".repeat(3000), "b".repeat(3000)]);
    expect(result.messageIds).toHaveLength(2);
    expect(splitText("x".repeat(9000)).map((part) => part.length)).toEqual([4096, 4096, 808]);
  });

  it("edits, deletes, reacts and shows a chat action", async () => {
    expect(output(await tools.call("telegram__edit", { chatId: 1, messageId: 5, text: "fixed" }))).toEqual({
      ok: true,
      chatId: "1",
      messageId: 5,
      edited: true,
    });
    expect(output(await tools.call("telegram__delete", { chatId: 1, messageId: "5" }))).toEqual({
      ok: true,
      chatId: "1",
      messageId: 5,
      deleted: true,
    });
    expect(
      output(await tools.call("telegram__react", { chatId: 1, messageId: 6, emoji: "👍", emojis: ["👍", "🔥"] })),
    ).toEqual({ ok: true, chatId: "1", messageId: 6, cleared: false, emojis: ["👍", "🔥"], reactionCount: 2 });
    expect(fake.callsOf("setMessageReaction").at(-1)?.payload.reaction).toEqual([
      { type: "emoji", emoji: "👍" },
      { type: "emoji", emoji: "🔥" },
    ]);
    expect(output(await tools.call("telegram__react", { chatId: 1, messageId: 6, clear: true }))).toMatchObject({
      cleared: true,
      reactionCount: 0,
    });
    expect(output(await tools.call("telegram__setChatAction", { chatId: 1, status: "upload-photo" }))).toEqual({
      ok: true,
      chatId: "1",
      status: "upload_photo",
      action: "upload_photo",
    });
    expect(output(await tools.call("telegram__setChatAction", { chatId: 1 }))).toMatchObject({ action: "typing" });
    expect(fake.rejected).toEqual([]);
  });

  it("downloads a file inline and into the workspace", async () => {
    const bytes = new TextEncoder().encode("PNG-ish bytes");
    fake.addFile({ fileId: "photo-1", bytes, contentType: "image/png", filePath: "photos/file_1.png" });
    const result = output(
      await tools.call("telegram__downloadFile", { fileId: "photo-1", savePath: "inbox/photo.png" }),
    );
    expect(result).toMatchObject({
      ok: true,
      fileId: "photo-1",
      filePath: "photos/file_1.png",
      fileSize: bytes.byteLength,
      contentType: "image/png",
      sizeBytes: bytes.byteLength,
      savedPath: "inbox/photo.png",
      base64: Buffer.from(bytes).toString("base64"),
    });
    expect(result.dataUrl).toBe(`data:image/png;base64,${Buffer.from(bytes).toString("base64")}`);
    expect(readFileSync(join(workdir, "inbox/photo.png"), "utf8")).toBe("PNG-ish bytes");
    expect(JSON.stringify(result)).not.toContain(fake.token);
  });

  it("refuses a file over maxBytes and a savePath outside the workspace", async () => {
    fake.addFile({ fileId: "big", bytes: new Uint8Array(5000), contentType: "application/pdf" });
    const tooBig = await tools.call("telegram__downloadFile", { fileId: "big", maxBytes: 1000 });
    expect(tooBig).toMatchObject({ status: "error", error: { code: "E_TELEGRAM_FILE_TOO_LARGE" } });
    const outside = await tools.call("telegram__downloadFile", { fileId: "big", savePath: "../../etc/x" });
    expect(outside).toMatchObject({ status: "error", error: { code: "E_PATH_OUTSIDE_WORKDIR" } });
  });

  it("turns Telegram's refusals into coded errors without the token", async () => {
    fake.failNext("sendMessage", { errorCode: 400, description: "Bad Request: chat not found" });
    const notFound = await tools.call("telegram__send", { chatId: 99, text: "hello?" });
    expect(notFound).toMatchObject({
      status: "error",
      error: { code: "E_TELEGRAM_API", message: "Telegram sendMessage failed (400): Bad Request: chat not found" },
    });
    expect(notFound.status === "error" && notFound.error.suggestion).toContain("chat_id");
    fake.failNext("sendMessage", { errorCode: 429, description: "Too Many Requests: retry after 3", retryAfter: 3 });
    expect(await tools.call("telegram__send", { chatId: 99, text: "again" })).toMatchObject({
      status: "error",
      error: { code: "E_TELEGRAM_RATE_LIMITED" },
    });
  });

  it("never lets the token reach the model, even when the API cannot be reached", async () => {
    const offline = await baseTools({ config: { telegram: { token: fake.token, apiBaseUrl: "http://127.0.0.1:1" } } });
    const result = await offline.call("telegram__send", { chatId: 1, text: "x" });
    expect(result).toMatchObject({ status: "error", error: { code: "E_TELEGRAM_UNREACHABLE" } });
    expect(JSON.stringify(result)).not.toContain(fake.token);
    const wrongToken = await baseTools({ config: { telegram: { token: "999:wrong", apiBaseUrl: fake.url } } });
    const refused = await wrongToken.call("telegram__send", { chatId: 1, text: "x" });
    expect(refused).toMatchObject({ status: "error", error: { code: "E_TELEGRAM_API" } });
    expect(JSON.stringify(refused)).not.toContain("999:wrong");
  });

  it("says what is missing when no token is configured, and rejects a token argument from the model", async () => {
    const noToken = await baseTools({ config: { telegram: { token: null, apiBaseUrl: fake.url } } });
    expect(await noToken.call("telegram__send", { chatId: 1, text: "x" })).toMatchObject({
      status: "error",
      error: { code: "E_TELEGRAM_NO_TOKEN" },
    });
    expect(await tools.call("telegram__send", { chatId: 1, text: "x", token: "stolen" })).toMatchObject({
      status: "error",
      error: { code: "E_TOOL_INVALID_ARGS" },
    });
  });

  it("finds the API at GOONDAN_TELEGRAM_API_BASE_URL when the config names none", async () => {
    const saved = process.env.GOONDAN_TELEGRAM_API_BASE_URL;
    process.env.GOONDAN_TELEGRAM_API_BASE_URL = fake.url;
    try {
      const viaEnv = await baseTools({ config: { telegram: { token: fake.token } } });
      expect(await viaEnv.call("telegram__setChatAction", { chatId: 3 })).toMatchObject({ status: "ok" });
    } finally {
      if (saved === undefined) delete process.env.GOONDAN_TELEGRAM_API_BASE_URL;
      else process.env.GOONDAN_TELEGRAM_API_BASE_URL = saved;
    }
    const bad = await baseTools({ config: { telegram: { token: fake.token, apiBaseUrl: "ftp://nope" } } });
    expect(await bad.call("telegram__setChatAction", { chatId: 3 })).toMatchObject({
      status: "error",
      error: { code: "E_CHANNEL_BASE_URL" },
    });
  });
});
