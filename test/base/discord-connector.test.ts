/**
 * The discord connector against the loopback Discord fake: signed interactions only (Ed25519, as Discord
 * signs), PONG for PING, slash commands and components emitted as upstream's events, a deferred answer at
 * once, and the turn's reply delivered through Discord's interaction webhooks.
 */
import { afterEach, beforeEach, describe, expect, it } from "bun:test";
import type { ConnectorEvent, ConnectorReply } from "../../src/connector/connector-types.ts";
import { createDiscordHandler, discordSettings, type DiscordSettings } from "../../src/base/connectors/discord.ts";
import { serveEndpoint } from "../../src/base/connectors/http-endpoint.ts";
import { failedOutcome } from "../../src/protocol/turn-outcome.ts";
import { startFakeDiscord, type FakeDiscord } from "../helpers/fake-discord.ts";
import { until } from "../helpers/goondan-process.ts";

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };
let fake: FakeDiscord;
let server: { port: number; stop(): void } | undefined;

beforeEach(async () => {
  fake = await startFakeDiscord();
});
afterEach(async () => {
  server?.stop();
  server = undefined;
  await fake.close();
});

function serve(
  options: { replyWithTurnResponse?: boolean; reply?: (event: ConnectorEvent) => Promise<ConnectorReply> } = {},
) {
  const emitted: ConnectorEvent[] = [];
  const ctx = {
    logger: quietLogger,
    emit: async (event: ConnectorEvent) => (emitted.push(event), { eventId: `evt_${emitted.length}` }),
    request: async (event: ConnectorEvent) => {
      emitted.push(event);
      return options.reply
        ? options.reply(event)
        : {
            status: "ok" as const,
            agent: "ops",
            instanceKey: "discord:300",
            eventId: "evt",
            turnId: "turn_1",
            finishReason: "stop",
            response: `answer to ${event.message.type === "text" ? event.message.text : ""}`,
          };
    },
  };
  const settings: DiscordSettings = {
    ...discordSettings({
      config: {
        DISCORD_PUBLIC_KEY: fake.publicKeyHex,
        DISCORD_API_BASE_URL: fake.apiUrl,
        port: 0,
        path: "/interactions",
        ...(options.replyWithTurnResponse === false ? { replyWithTurnResponse: false } : {}),
      },
      secrets: {},
    }),
  };
  server = serveEndpoint({ settings, handler: createDiscordHandler({ ctx, settings }) });
  return { emitted, target: `http://127.0.0.1:${server.port}/interactions` };
}

const slash = {
  type: 2,
  channel_id: "300",
  guild_id: "200",
  member: { user: { id: "42", username: "ana" } },
  data: { name: "ask", options: [{ name: "question", type: 3, value: "what is up?" }] },
};

describe("discord connector", () => {
  it("answers PING with PONG and refuses unsigned or badly signed requests", async () => {
    const { target } = serve();
    const ping = await fake.sendInteraction(target, { type: 1 });
    expect(await ping.response.json()).toEqual({ type: 1 });
    expect((await fake.sendInteraction(target, { type: 1 }, { badSignature: true })).response.status).toBe(401);
    expect(
      (await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: '{"type":1}' }))
        .status,
    ).toBe(401);
  });

  it("defers a slash command at once, emits slash_command and replaces the deferred message with the turn's reply", async () => {
    const { target, emitted } = serve();
    const { response, token } = await fake.sendInteraction(target, slash);
    expect(await response.json()).toEqual({ type: 5 });
    expect(emitted[0]).toEqual({
      name: "slash_command",
      message: { type: "text", text: "/ask question=what is up?" },
      properties: expect.objectContaining({
        channel_id: "300",
        guild_id: "200",
        command_name: "ask",
        user_id: "42",
        username: "ana",
      }),
      instanceKey: "discord:300",
    });
    expect(JSON.stringify(emitted[0])).not.toContain(token);
    await until(() => fake.replies.length === 1);
    expect(fake.replies[0]).toEqual({
      kind: "edit-original",
      interactionToken: token,
      content: "answer to /ask question=what is up?",
    });
    expect(fake.rejected).toEqual([]);
  });

  it("acknowledges a component with a deferred update and posts the reply as a follow-up", async () => {
    const { target, emitted } = serve();
    const { response } = await fake.sendInteraction(target, {
      type: 3,
      channel_id: "301",
      user: { id: "7", username: "bo" },
      data: { custom_id: "approve", component_type: 2 },
    });
    expect(await response.json()).toEqual({ type: 6 });
    expect(emitted[0]).toMatchObject({
      name: "component_interaction",
      properties: { custom_id: "approve", channel_id: "301" },
    });
    await until(() => fake.replies.length === 1);
    expect(fake.replies[0]).toMatchObject({ kind: "follow-up", content: "answer to approve" });
  });

  it("tells the user when the turn failed, and acknowledges at once without replies when told to", async () => {
    const failing = serve({
      reply: async () =>
        failedOutcome({
          agent: "ops",
          instanceKey: "discord:300",
          eventId: "e",
          error: { code: "E_AGENT_TURN_FAILED", message: "boom" },
        }),
    });
    await fake.sendInteraction(failing.target, slash);
    await until(() => fake.replies.length === 1);
    expect(fake.replies[0]?.content).toContain("E_AGENT_TURN_FAILED");
    server?.stop();
    const quiet = serve({ replyWithTurnResponse: false });
    const { response } = await fake.sendInteraction(quiet.target, slash);
    expect(await response.json()).toEqual({ type: 4, data: { content: "Received.", flags: 64 } });
    expect(quiet.emitted).toHaveLength(1);
  });

  it("needs the application's public key", () => {
    expect(() => discordSettings({ config: {}, secrets: {} })).toThrow(/DISCORD_PUBLIC_KEY/);
    expect(() => discordSettings({ config: { DISCORD_PUBLIC_KEY: "abc" }, secrets: {} })).toThrow(/64 hex digits/);
  });
});
