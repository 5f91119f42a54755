/**
 * The channels swarm (test/fixtures/bundles/channels-swarm, public Goondan format) through a real `goondan run`:
 * the model on the loopback LLM, Telegram and Slack on the loopback fakes. A Telegram message reaches the
 * coordinator through the telegram-polling connector process; it delegates to the worker, whose local
 * extension asks the memory agent from its turn middleware (ctx.agents.request) and tells the observer after
 * (ctx.agents.send); the answer goes back through telegram__send. A Slack mention goes the async way: the
 * worker's reply wakes the coordinator, inter-agent-response-format shapes it, and slack__send answers in
 * the thread. Every agent is reached, and the fakes saw only well-formed, authenticated calls. Also through real
 * processes: the discord and github connectors (signed requests in, the turn's answer back on Discord), and a
 * throwing extension reported loudly.
 */
import { describe, expect, it } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanups, killChild } from "../helpers/cleanups.ts";
import { startFakeDiscord } from "../helpers/fake-discord.ts";
import { fakeGithub } from "../helpers/fake-github.ts";
import { startFakeSlack } from "../helpers/fake-slack.ts";
import { startFakeTelegram } from "../helpers/fake-telegram.ts";
import { startGoondanRun, until } from "../helpers/goondan-process.ts";
import {
  lastUserText,
  messageText,
  startLoopbackLlm,
  systemPrompt,
  toolResults,
  type LoopbackReply,
  type LoopbackRequest,
} from "../helpers/loopback-llm.ts";

const FIXTURE = new URL("../fixtures/bundles/channels-swarm", import.meta.url).pathname;
const defer = useCleanups();

const roleOf = (request: LoopbackRequest) => /ROLE=(\w+)/.exec(systemPrompt(request))?.[1] ?? "unknown";
const lastRole = (request: LoopbackRequest) => request.body.messages.at(-1)?.role ?? "";

/** What the connector's event said, read from context-message's [runtime_inbound] block (as a model would). */
function inbound(request: LoopbackRequest): { connector?: string; properties?: Record<string, string> } {
  const match = /eventMetadata=(\{.*\})/.exec(systemPrompt(request));
  return match?.[1] === undefined
    ? {}
    : (JSON.parse(match[1]) as { connector?: string; properties?: Record<string, string> });
}

/** The scripted model of every agent of the swarm. */
function channelsModel(request: LoopbackRequest): LoopbackReply {
  const role = roleOf(request);
  if (role === "memory") return { text: "rockets go up" };
  if (role === "observer") return { text: "observed" };
  if (role === "worker") {
    const memory = /\[memory_context\]\n(.*)\n/.exec(systemPrompt(request))?.[1] ?? "nothing";
    return { text: `worker did "${lastUserText(request)}" (memory: ${memory})` };
  }
  // coordinator
  const assistantTexts = request.body.messages.filter((message) => message.role === "assistant").map(messageText);
  if (lastRole(request) === "tool") {
    const last = toolResults(request).at(-1)?.content as
      | { status?: string; output?: Record<string, unknown> }
      | undefined;
    const output = last?.output ?? {};
    if (typeof output.response === "string") {
      const chatId = inbound(request).properties?.chat_id ?? "missing";
      return {
        toolCalls: [{ name: "telegram__send", args: { chatId, text: `Here is what I found: ${output.response}` } }],
      };
    }
    if (last?.status === "pending") {
      const where = inbound(request).properties ?? {};
      return {
        text: `Waiting for the worker; will answer in slack channel ${where.channel_id} thread ${where.thread_ts ?? where.ts}.`,
      };
    }
    return { text: `delivered: ${JSON.stringify(output)}` };
  }
  const text = lastUserText(request);
  if (text.startsWith("[inter-agent response] worker -> coordinator status=ok")) {
    const promise = [...assistantTexts].reverse().find((said) => said.includes("will answer in slack channel")) ?? "";
    const [, channelId, threadTs] = /slack channel (\S+) thread (\S+)\./.exec(promise) ?? [];
    return {
      toolCalls: [
        { name: "slack__send", args: { channelId, threadTs, text: `Done: ${text.split("\n").slice(1).join(" ")}` } },
      ],
    };
  }
  const source = inbound(request);
  if (source.connector === "telegram-polling")
    return { toolCalls: [{ name: "agents__request", args: { target: "worker", input: text } }] };
  if (source.connector === "slack")
    return {
      toolCalls: [
        { name: "agents__request", args: { target: "worker", input: text.replace(/<@\w+>\s*/, ""), async: true } },
      ],
    };
  return { text: `coordinator heard: ${text}` };
}

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = probe.port as number;
  probe.stop(true);
  return port;
}

describe("a multi-agent swarm behind Telegram and Slack", () => {
  it("reaches every agent from a Telegram message and a Slack mention, and answers on each channel", async () => {
    const llm = await startLoopbackLlm({ respond: channelsModel });
    const telegram = await startFakeTelegram();
    const slack = await startFakeSlack();
    const dir = mkdtempSync(join(tmpdir(), "goondan-channels-"));
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-channels-state-"));
    cpSync(FIXTURE, dir, { recursive: true });
    const slackPort = freePort();
    const bundleFile = join(dir, "goondan.yaml");
    writeFileSync(
      bundleFile,
      readFileSync(bundleFile, "utf8")
        .replace("http://loopback-llm.invalid/v1", llm.url)
        .replace('value: "3102"', `value: "${slackPort}"`),
    );
    defer(async () => {
      await Promise.all([llm.close(), telegram.close(), slack.close()]);
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });
    let stderr = "";
    const daemon = await startGoondanRun({
      args: [dir, "--port", "0", "--state-root", stateRoot],
      env: {
        TELEGRAM_BOT_TOKEN: telegram.token,
        SLACK_BOT_TOKEN: slack.token,
        SLACK_SIGNING_SECRET: slack.signingSecret,
        GOONDAN_TELEGRAM_API_BASE_URL: telegram.url,
        GOONDAN_SLACK_API_BASE_URL: slack.apiUrl,
        GOONDAN_LOG_LEVEL: "info",
      },
      readyTimeoutMs: 30_000,
      onSpawn: (proc) => {
        void (async () => {
          if (typeof proc.stderr === "number" || proc.stderr === undefined) return;
          for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
        })();
        defer(async () => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
          await Promise.race([proc.exited, Bun.sleep(15_000)]);
          if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
        });
      },
    });
    const explain = () =>
      `\nllm unexpected: ${llm.unexpected.length}\nstderr tail: ${stderr.slice(-3000)}\nlogs: ${JSON.stringify(daemon.lines.slice(-20))}`;

    // Telegram: message → coordinator → worker (→ memory, then observer) → telegram__send to the same chat.
    telegram.sendUserMessage({ chatId: 4242, text: "research rockets", username: "alice" });
    const sent = await until(() => telegram.callsOf("sendMessage")[0], { timeoutMs: 60_000 }).catch((error: Error) => {
      throw new Error(`${error.message}${explain()}`);
    });
    expect(sent.payload).toEqual({
      chat_id: "4242",
      text: 'Here is what I found: worker did "research rockets" (memory: rockets go up)',
    });
    await until(() => llm.requests.some((request) => roleOf(request) === "observer"), { timeoutMs: 30_000 });
    const observed = llm.requests.find((request) => roleOf(request) === "observer");
    expect(lastUserText(observed!)).toContain('output: worker did "research rockets"');

    // Slack: mention → coordinator (async request) → worker → reply wakes the coordinator → slack__send in the thread.
    const mention = {
      type: "app_mention",
      user: "U1",
      text: "<@UBOT> check the launch pad",
      ts: "1700000100.000100",
      channel: "C0GENERAL",
    };
    const { response } = await slack.deliverEvent(`http://127.0.0.1:${slackPort}/`, mention);
    expect(response.status).toBe(200);
    const posted = await until(() => slack.callsOf("chat.postMessage")[0], { timeoutMs: 60_000 }).catch(
      (error: Error) => {
        throw new Error(`${error.message}${explain()}`);
      },
    );
    expect(posted.payload).toMatchObject({ channel: "C0GENERAL", thread_ts: "1700000100.000100" });
    expect(String(posted.payload.text)).toStartWith('Done: worker did "check the launch pad"');
    expect(
      llm.requests.some(
        (request) =>
          roleOf(request) === "coordinator" &&
          lastUserText(request).startsWith("[inter-agent response] worker -> coordinator status=ok"),
      ),
    ).toBe(true);

    expect(new Set(llm.requests.map(roleOf))).toEqual(new Set(["coordinator", "worker", "memory", "observer"]));
    expect(llm.unexpected).toEqual([]);
    expect(telegram.rejected).toEqual([]);
    expect(slack.rejected).toEqual([]);
    const allOutput =
      JSON.stringify(daemon.lines) + stderr + JSON.stringify(llm.requests.map((request) => request.body));
    for (const secret of [telegram.token, slack.token, slack.signingSecret])
      expect(allOutput.includes(secret)).toBe(false);
  }, 150_000);
});

describe("an extension that throws, in a real agent process", () => {
  it("is reported loudly: a warning naming the extension and hook, and an extension.failed runtime event", async () => {
    const llm = await startLoopbackLlm({ fallback: { text: "fine" } });
    const dir = mkdtempSync(join(tmpdir(), "goondan-flaky-"));
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-flaky-state-"));
    writeFileSync(
      join(dir, "goondan.yaml"),
      [
        "apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: loopback }\nspec: { provider: openai-compatible, model: loopback, endpoint: " +
          llm.url +
          " }",
        "apiVersion: goondan.ai/v1\nkind: Extension\nmetadata: { name: flaky }\nspec: { entry: ./flaky.ts }",
        "apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: solo }\nspec:\n  modelConfig: { modelRef: Model/loopback }\n  prompt: { system: hi }\n  extensions: [Extension/flaky]",
        "apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: one }\nspec: { entryAgent: Agent/solo, agents: [Agent/solo], instanceKey: main }",
      ].join("\n---\n"),
    );
    writeFileSync(
      join(dir, "flaky.ts"),
      'export function register(api) {\n  api.pipeline.register("turn", async (ctx) => {\n    if (ctx.inputEvent.input.includes("explode")) throw new Error("the flaky extension exploded");\n    return ctx.next();\n  });\n}\n',
    );
    defer(async () => {
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });
    const daemon = await startGoondanRun({
      args: [dir, "--port", "0", "--state-root", stateRoot],
      env: { GOONDAN_LOG_LEVEL: "info" },
      stderr: "ignore",
      onSpawn: (proc) => defer(killChild(proc)),
    });
    const post = async (input: string) =>
      (
        await fetch(`${daemon.base}/v1/events`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input, wait: true }),
        })
      ).json() as Promise<{ status: string; response: string; error?: { code: string } }>;
    expect(await post("hello")).toMatchObject({ status: "ok", response: "fine" });
    expect(await post("please explode")).toMatchObject({ status: "error", error: { code: "E_AGENT_TURN_FAILED" } });
    const warning = await until(() => daemon.lines.find((line) => line.level === 40 && line.extension === "flaky"));
    expect(warning).toMatchObject({ agent: "solo", hook: "turn", error: "the flaky extension exploded" });
    const { events } = (await (await fetch(`${daemon.base}/v1/instances/solo/main/events`)).json()) as {
      events: { type: string; data?: Record<string, unknown> }[];
    };
    expect(events.filter((event) => event.type === "extension.failed").map((event) => event.data)).toEqual([
      { extension: "flaky", hook: "turn" },
    ]);
  }, 60_000);
});

describe("the discord and github connectors, as real connector processes", () => {
  it("turn a signed slash command and a signed GitHub delivery into turns, and answer the slash command on Discord", async () => {
    const llm = await startLoopbackLlm({ respond: (request) => ({ text: `on it: ${lastUserText(request)}` }) });
    const discord = await startFakeDiscord();
    const github = fakeGithub();
    const [discordPort, githubPort] = [freePort(), freePort()];
    const dir = mkdtempSync(join(tmpdir(), "goondan-hooks-"));
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-hooks-state-"));
    writeFileSync(
      join(dir, "goondan.yaml"),
      [
        `apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: loopback }\nspec: { provider: openai-compatible, model: loopback, endpoint: ${llm.url} }`,
        "apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: ops }\nspec:\n  modelConfig: { modelRef: Model/loopback }\n  prompt: { system: You handle chat commands and repository events. }",
        "apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: ops }\nspec: { entryAgent: Agent/ops, agents: [Agent/ops] }",
        `apiVersion: goondan.ai/v1\nkind: Connection\nmetadata: { name: discord-in }\nspec:\n  connectorRef: { kind: Connector, name: discord, package: "@goondan/base" }\n  config:\n    DISCORD_PUBLIC_KEY: { value: "${discord.publicKeyHex}" }\n    DISCORD_WEBHOOK_PORT: { value: "${discordPort}" }\n    DISCORD_API_BASE_URL: { value: "${discord.apiUrl}" }\n  ingress:\n    rules:\n      - match: { event: slash_command }\n        route: { agentRef: Agent/ops, instanceKeyProperty: channel_id, instanceKeyPrefix: "discord-" }`,
        `apiVersion: goondan.ai/v1\nkind: Connection\nmetadata: { name: github-in }\nspec:\n  connectorRef: { kind: Connector, name: github, package: "@goondan/base" }\n  config:\n    GITHUB_WEBHOOK_PORT: { value: "${githubPort}" }\n  secrets:\n    GITHUB_WEBHOOK_SECRET: { valueFrom: { env: GITHUB_WEBHOOK_SECRET } }\n  ingress:\n    rules:\n      - match: { event: github_issue }\n        route: { agentRef: Agent/ops, instanceKey: repo-events }`,
      ].join("\n---\n"),
    );
    defer(async () => {
      await Promise.all([llm.close(), discord.close()]);
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });
    const daemon = await startGoondanRun({
      args: [dir, "--port", "0", "--state-root", stateRoot],
      env: { GITHUB_WEBHOOK_SECRET: github.secret, GOONDAN_LOG_LEVEL: "info" },
      stderr: "ignore",
      readyTimeoutMs: 30_000,
      onSpawn: (proc) => defer(killChild(proc)),
    });
    const listening = async (port: number) =>
      fetch(`http://127.0.0.1:${port}/`, { method: "GET" }).then(
        () => true,
        () => false,
      );
    await until(async () => (await listening(discordPort)) && (await listening(githubPort)), { timeoutMs: 20_000 });

    const { response, token } = await discord.sendInteraction(`http://127.0.0.1:${discordPort}/`, {
      type: 2,
      channel_id: "300",
      member: { user: { id: "42", username: "ana" } },
      data: { name: "deploy", options: [{ name: "env", type: 3, value: "staging" }] },
    });
    expect(await response.json()).toEqual({ type: 5 });
    const reply = await until(() => discord.replies[0], { timeoutMs: 30_000 });
    expect(reply).toEqual({ kind: "edit-original", interactionToken: token, content: "on it: /deploy env=staging" });

    const delivery = await github.deliver(`http://127.0.0.1:${githubPort}/`, "issues", {
      action: "opened",
      repository: { full_name: "acme/rocket" },
      sender: { login: "octocat" },
      issue: { number: 7, title: "Launch pad is on fire" },
    });
    expect(delivery.status).toBe(202);
    await until(() => llm.requests.some((request) => lastUserText(request) === "Launch pad is on fire"), {
      timeoutMs: 30_000,
    });
    expect(
      (await github.deliver(`http://127.0.0.1:${githubPort}/`, "issues", { repository: {} }, { secret: "forged" }))
        .status,
    ).toBe(401);
    const instances = (await (await fetch(`${daemon.base}/v1/instances`)).json()) as {
      instances: { agent: string; instanceKey: string }[];
    };
    expect(instances.instances.map((row) => row.instanceKey).sort()).toEqual(
      expect.arrayContaining(["discord-300", "repo-events"]),
    );
    expect(discord.rejected).toEqual([]);
    expect(llm.unexpected).toEqual([]);
  }, 90_000);
});
