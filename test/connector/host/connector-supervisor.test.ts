import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConnectorSupervisor,
  type ConnectorIngestRequest,
  type ConnectorRunSpec,
} from "../../../src/connector/host/connector-supervisor.ts";
import { CONNECTOR_ENTRY_SCRIPT } from "../../../src/protocol/child-entry.ts";
import { bunProcessSpawner } from "../../../src/supervision/process-spawner.ts";
import { signBody } from "../../../src/base/connectors/webhook-signature.ts";
import { until as pollUntil } from "../../helpers/goondan-process.ts";
import { outcome } from "../../helpers/outcomes.ts";
import { realProcessTimeouts } from "../../helpers/cleanups.ts";

realProcessTimeouts();

const WEBHOOK_ENTRY = new URL("../../../src/base/connectors/webhook.ts", import.meta.url).pathname;
const FIXTURES = new URL("../../fixtures/connectors/", import.meta.url).pathname;

const supervisors: ConnectorSupervisor[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((supervisor) => supervisor.stopAll({ gracePeriodMs: 2000 })));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = server.port as number;
  server.stop(true);
  return port;
}

const spec = (overrides: Partial<ConnectorRunSpec>): ConnectorRunSpec => ({
  connection: "hook-in",
  connector: "webhook",
  entry: WEBHOOK_ENTRY,
  config: {},
  secrets: {},
  rules: [],
  entryAgent: "front",
  swarmInstanceKey: "team",
  stdin: "ignore",
  ...overrides,
});

function setup(
  options: { policy?: { maxConsecutiveCrashes: number; initialBackoffMs: number; maxBackoffMs: number } } = {},
) {
  const ingested: ConnectorIngestRequest[] = [];
  const supervisor = new ConnectorSupervisor({
    spawner: bunProcessSpawner({ entryScript: CONNECTOR_ENTRY_SCRIPT, output: "ignore" }),
    ingest: async (request) => {
      ingested.push(request);
      const eventId = `evt_${ingested.length}`;
      return { eventId, reply: Promise.resolve(outcome({ eventId, response: `answer to ${request.input}` })) };
    },
    ...(options.policy ? { policy: () => options.policy! } : {}),
  });
  supervisors.push(supervisor);
  return { supervisor, ingested };
}

const until = <T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000) =>
  pollUntil(probe, { timeoutMs, intervalMs: 20 });

async function postUntilServing(url: string, init: RequestInit): Promise<Response> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await fetch(url, init);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe("ConnectorSupervisor with real connector children", () => {
  it("runs the webhook connector: a POST is routed by the ingress rules and answered 202 with the eventId", async () => {
    const { supervisor, ingested } = setup();
    const port = freePort();
    await supervisor.start(
      spec({
        config: { port, path: "/hook" },
        secrets: { SIGNING_SECRET: "s3cret" },
        rules: [
          {
            match: { event: "webhook_message", properties: { repo: "api" } },
            route: { agentRef: { kind: "Agent", name: "ops" }, instanceKeyProperty: "pr", instanceKeyPrefix: "pr-" },
          },
        ],
      }),
    );
    const body = JSON.stringify({ text: "CI failed", repo: "api", pr: 42 });
    const response = await postUntilServing(`http://127.0.0.1:${port}/hook`, {
      method: "POST",
      body,
      headers: { "x-goondan-signature": signBody({ body, secret: "s3cret" }) },
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ accepted: true, eventId: "evt_1" });
    expect(ingested).toHaveLength(1);
    expect(ingested[0]).toMatchObject({
      connection: "hook-in",
      agent: "ops",
      instanceKey: "pr-42",
      input: "CI failed",
      type: "connector.webhook_message",
      wantsReply: false,
    });

    const badSignature = await fetch(`http://127.0.0.1:${port}/hook`, {
      method: "POST",
      body,
      headers: { "x-goondan-signature": signBody({ body, secret: "nope" }) },
    });
    expect(badSignature.status).toBe(401);
    const badJson = await fetch(`http://127.0.0.1:${port}/hook`, {
      method: "POST",
      body: "{",
      headers: { "x-goondan-signature": signBody({ body: "{", secret: "s3cret" }) },
    });
    expect(badJson.status).toBe(400);
    const unrouted = JSON.stringify({ text: "x", repo: "web" });
    const noRoute = await fetch(`http://127.0.0.1:${port}/hook`, {
      method: "POST",
      body: unrouted,
      headers: { "x-goondan-signature": signBody({ body: unrouted, secret: "s3cret" }) },
    });
    expect(noRoute.status).toBe(422);
    expect(ingested).toHaveLength(1);
    expect(supervisor.list()).toMatchObject([
      { kind: "connector", connection: "hook-in", status: "running", restarts: 0 },
    ]);
  });

  it("gives a start(ctx) connector its config and secrets and delivers the turn's reply to ctx.request", async () => {
    const { supervisor, ingested } = setup();
    const dir = mkdtempSync(join(tmpdir(), "goondan-connector-"));
    dirs.push(dir);
    const outFile = join(dir, "out.json");
    await supervisor.start(
      spec({
        connection: "asker",
        connector: "asker",
        entry: join(FIXTURES, "asker.ts"),
        config: { outFile },
        secrets: { TOKEN: "t0k" },
      }),
    );
    await until(() => existsSync(outFile));
    expect(JSON.parse(readFileSync(outFile, "utf8"))).toEqual({
      reply: outcome({ eventId: "evt_1", response: "answer to what time is it?" }),
      token: "t0k",
    });
    expect(ingested[0]).toMatchObject({
      agent: "front",
      instanceKey: "team",
      wantsReply: true,
      type: "connector.question",
    });
  });

  it("restarts a crashing connector with backoff and keeps the supervisor alive", async () => {
    const { supervisor } = setup({ policy: { maxConsecutiveCrashes: 2, initialBackoffMs: 100, maxBackoffMs: 200 } });
    const dir = mkdtempSync(join(tmpdir(), "goondan-connector-"));
    dirs.push(dir);
    const startsFile = join(dir, "starts");
    await supervisor.start(
      spec({
        connection: "crashy",
        connector: "crashing",
        entry: join(FIXTURES, "crashing.ts"),
        config: { startsFile },
      }),
    );
    await until(() => existsSync(startsFile) && readFileSync(startsFile, "utf8").trim().split("\n").length >= 4);
    const [info] = supervisor.list();
    expect(info?.restarts).toBeGreaterThanOrEqual(3);
    expect(info?.consecutiveCrashes).toBeGreaterThanOrEqual(3);
  });
});
