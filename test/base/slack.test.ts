/**
 * The built-in `slack` tool against the loopback Slack fake: every export calls the Web API the way Slack
 * expects (bearer token, JSON or form body, fields; checked by the fake), returns upstream's result shape,
 * turns Slack's refusals into coded errors, and sends the bot token to Slack hosts only.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeSlack, type FakeSlack } from "../helpers/fake-slack.ts";
import { baseTools, type BaseToolHarness } from "./base-tools.ts";

let fake: FakeSlack;
let tools: BaseToolHarness;
let workdir: string;

beforeAll(async () => {
  fake = await startFakeSlack();
  workdir = mkdtempSync(join(tmpdir(), "goondan-slack-"));
  tools = await baseTools({ config: { slack: { token: fake.token, apiBaseUrl: fake.apiUrl } }, context: { workdir } });
});
afterAll(() => fake.close());

const output = (result: { status: string; output?: unknown }) => {
  expect(result).toMatchObject({ status: "ok" });
  return result.output as Record<string, unknown>;
};

describe("slack tool", () => {
  it("posts a message, in a thread too, and reads it back", async () => {
    const posted = output(
      await tools.call("slack__send", { channelId: "C0GENERAL", text: "hello team", unfurlLinks: false }),
    );
    expect(posted).toMatchObject({ ok: true, channelId: "C0GENERAL", text: "hello team" });
    const ts = String(posted.messageTs);
    expect(fake.callsOf("chat.postMessage")[0]).toMatchObject({
      payload: { channel: "C0GENERAL", text: "hello team", unfurl_links: false },
      contentType: "application/json; charset=utf-8",
    });
    output(await tools.call("slack__send", { channelId: "C0GENERAL", text: "in thread", threadTs: ts }));
    const thread = output(await tools.call("slack__read", { channelId: "C0GENERAL", threadTs: ts }));
    expect(thread).toMatchObject({ method: "conversations.replies", count: 2, threadTs: ts });
    const found = output(await tools.call("slack__read", { channelId: "C0GENERAL", messageTs: ts }));
    expect(found).toMatchObject({
      method: "conversations.history",
      messageTs: ts,
      found: { text: "hello team" },
      hasMore: false,
      nextCursor: null,
    });
    expect(fake.callsOf("conversations.history")[0]).toMatchObject({
      payload: { channel: "C0GENERAL", latest: ts, inclusive: "true", limit: "1" },
      contentType: "application/x-www-form-urlencoded",
    });
    expect(fake.rejected).toEqual([]);
  });

  it("edits, reacts to and deletes a message", async () => {
    const ts = String(output(await tools.call("slack__send", { channelId: "D0DIRECT", text: "draft" })).messageTs);
    expect(output(await tools.call("slack__edit", { channelId: "D0DIRECT", messageTs: ts, text: "final" }))).toEqual({
      ok: true,
      channelId: "D0DIRECT",
      messageTs: ts,
      edited: true,
    });
    expect(
      output(
        await tools.call("slack__react", {
          channelId: "D0DIRECT",
          messageTs: ts,
          emoji: ":eyes:",
          emojis: ["eyes", "white_check_mark"],
        }),
      ),
    ).toEqual({
      ok: true,
      channelId: "D0DIRECT",
      messageTs: ts,
      emojis: ["eyes", "white_check_mark"],
      reactionCount: 2,
    });
    expect(fake.messages("D0DIRECT").find((message) => message.ts === ts)).toMatchObject({
      text: "final",
      reactions: [{ name: "eyes" }, { name: "white_check_mark" }],
    });
    expect(output(await tools.call("slack__delete", { channelId: "D0DIRECT", messageTs: ts }))).toEqual({
      ok: true,
      channelId: "D0DIRECT",
      messageTs: ts,
      deleted: true,
    });
    expect(fake.messages("D0DIRECT").some((message) => message.ts === ts)).toBe(false);
    expect(fake.rejected).toEqual([]);
  });

  it("turns Slack's errors into coded errors with a hint", async () => {
    const missing = await tools.call("slack__send", { channelId: "C0NOPE", text: "hi" });
    expect(missing).toMatchObject({
      status: "error",
      error: { code: "E_SLACK_API", message: "Slack chat.postMessage failed: channel_not_found" },
    });
    expect(missing.status === "error" && missing.error.suggestion).toContain("channel_id");
    fake.failNext("chat.postMessage", "ratelimited", 429);
    expect(await tools.call("slack__send", { channelId: "C0GENERAL", text: "spam" })).toMatchObject({
      status: "error",
      error: { code: "E_SLACK_RATE_LIMITED" },
    });
    expect(
      await tools.call("slack__react", { channelId: "C0GENERAL", messageTs: "1.2", emoji: "two words" }),
    ).toMatchObject({ status: "error", error: { code: "E_SLACK_INVALID_ARGS" } });
    const wrongToken = await baseTools({ config: { slack: { token: "xoxb-wrong", apiBaseUrl: fake.apiUrl } } });
    const refused = await wrongToken.call("slack__send", { channelId: "C0GENERAL", text: "hi" });
    expect(refused).toMatchObject({
      status: "error",
      error: { code: "E_SLACK_API", message: "Slack chat.postMessage failed: invalid_auth" },
    });
  });

  it("downloads a private file with the token, inline and into the workspace", async () => {
    const url = fake.addFile({
      name: "report.txt",
      bytes: new TextEncoder().encode("quarterly numbers"),
      contentType: "text/plain",
    });
    const result = output(
      await tools.call("slack__downloadFile", { url, savePath: "files/report.txt", includeDataUrl: false }),
    );
    expect(result).toMatchObject({
      ok: true,
      url,
      contentType: "text/plain",
      contentLength: 17,
      sizeBytes: 17,
      etag: '"fake-etag"',
      savedPath: "files/report.txt",
      base64: Buffer.from("quarterly numbers").toString("base64"),
      dataUrl: null,
    });
    expect(readFileSync(join(workdir, "files/report.txt"), "utf8")).toBe("quarterly numbers");
  });

  it("refuses to send the token to a host that is not Slack's", async () => {
    const result = await tools.call("slack__downloadFile", { url: "https://attacker.example/steal" });
    expect(result).toMatchObject({ status: "error", error: { code: "E_SLACK_FILE_URL" } });
    const other = await tools.call("slack__downloadFile", { url: "http://127.0.0.1:9/files/x" });
    expect(other).toMatchObject({ status: "error", error: { code: "E_SLACK_FILE_URL" } });
  });

  it("needs a configured token and never takes one from the model", async () => {
    const noToken = await baseTools({ config: { slack: { token: null, apiBaseUrl: fake.apiUrl } } });
    expect(await noToken.call("slack__send", { channelId: "C0GENERAL", text: "x" })).toMatchObject({
      status: "error",
      error: { code: "E_SLACK_NO_TOKEN" },
    });
    expect(await tools.call("slack__send", { channelId: "C0GENERAL", text: "x", token: "xoxb-other" })).toMatchObject({
      status: "error",
      error: { code: "E_TOOL_INVALID_ARGS" },
    });
  });
});
