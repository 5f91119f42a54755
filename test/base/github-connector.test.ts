/**
 * The github connector with deliveries from the GitHub fake: X-Hub-Signature-256 is required when a secret is
 * set, ping makes no event, upstream's event names and properties are emitted, and a redelivery is emitted once.
 */
import { afterEach, describe, expect, it } from "bun:test";
import type { ConnectorEvent } from "../../src/connector/connector-types.ts";
import {
  createGithubHandler,
  githubDeliveryToEvent,
  githubSettings,
  type GithubSettings,
} from "../../src/base/connectors/github.ts";
import { serveEndpoint } from "../../src/base/connectors/http-endpoint.ts";
import { fakeGithub } from "../helpers/fake-github.ts";

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };
let server: { port: number; stop(): void } | undefined;
afterEach(() => {
  server?.stop();
  server = undefined;
});

const github = fakeGithub();

function serve(settings: Partial<GithubSettings> = {}, emit?: (event: ConnectorEvent) => Promise<{ eventId: string }>) {
  const emitted: ConnectorEvent[] = [];
  const full: GithubSettings = {
    port: 0,
    host: "127.0.0.1",
    path: "/github",
    maxBodyBytes: 1024 * 1024,
    secret: github.secret,
    ...settings,
  };
  server = serveEndpoint({
    settings: full,
    handler: createGithubHandler({
      ctx: {
        emit: emit ?? (async (event) => (emitted.push(event), { eventId: `evt_${emitted.length}` })),
        logger: quietLogger,
      },
      settings: full,
    }),
  });
  return { emitted, target: `http://127.0.0.1:${server.port}/github` };
}

const repository = { full_name: "acme/rocket" };
const sender = { login: "octocat" };

describe("github connector", () => {
  it("emits github_push, github_pull_request, github_issue and github_issue_comment with upstream's properties", async () => {
    const { target, emitted } = serve();
    expect(
      (
        await github.deliver(target, "push", {
          ref: "refs/heads/main",
          repository,
          sender,
          head_commit: { message: "fix the launch" },
        })
      ).status,
    ).toBe(202);
    await github.deliver(target, "pull_request", {
      action: "opened",
      repository,
      sender,
      pull_request: { number: 12, title: "Add boosters" },
    });
    await github.deliver(target, "issues", {
      action: "closed",
      repository,
      sender,
      issue: { number: 3, title: "It wobbles" },
    });
    await github.deliver(
      target,
      "issue_comment",
      { action: "created", repository, sender, issue: { number: 3 }, comment: { body: "fixed in #12" } },
      { form: true },
    );
    expect(
      emitted.map((event) => [event.name, event.message.type === "text" ? event.message.text : "", event.instanceKey]),
    ).toEqual([
      ["github_push", "fix the launch", "github:acme/rocket"],
      ["github_pull_request", "Add boosters", "github:acme/rocket"],
      ["github_issue", "It wobbles", "github:acme/rocket"],
      ["github_issue_comment", "fixed in #12", "github:acme/rocket"],
    ]);
    expect(emitted[0]?.properties).toEqual({
      event: "push",
      repo: "acme/rocket",
      sender: "octocat",
      ref: "refs/heads/main",
    });
    expect(emitted[1]?.properties).toEqual({
      event: "pull_request",
      action: "opened",
      repo: "acme/rocket",
      sender: "octocat",
      number: "12",
    });
    expect(githubDeliveryToEvent("release", { action: "published", repository }).name).toBe("github_release");
  });

  it("answers ping without an event, and emits a redelivery once", async () => {
    const { target, emitted } = serve();
    expect(await github.deliver(target, "ping", { zen: "Keep it logically awesome.", repository })).toMatchObject({
      status: 200,
      answer: { ok: true, pong: true },
    });
    await github.deliver(target, "push", { ref: "refs/heads/main", repository }, { deliveryId: "d-1" });
    expect(
      await github.deliver(target, "push", { ref: "refs/heads/main", repository }, { deliveryId: "d-1" }),
    ).toMatchObject({ status: 200, answer: { duplicate: true } });
    expect(emitted).toHaveLength(1);
  });

  it("refuses unsigned and wrongly signed deliveries when a secret is set, and accepts unsigned ones without", async () => {
    const signed = serve();
    expect(await github.deliver(signed.target, "push", { repository }, { secret: null })).toMatchObject({
      status: 401,
      answer: { error: { code: "E_GITHUB_SIGNATURE", message: "missing X-Hub-Signature-256 header" } },
    });
    expect((await github.deliver(signed.target, "push", { repository }, { secret: "wrong" })).status).toBe(401);
    expect(signed.emitted).toEqual([]);
    server?.stop();
    const open = serve({ secret: undefined });
    expect((await github.deliver(open.target, "push", { repository }, { secret: null })).status).toBe(202);
  });

  it("answers 422 for an event no rule routes (visible in GitHub's delivery log)", async () => {
    const { target } = serve({}, async () => {
      throw Object.assign(new Error("no ingress rule matches"), { code: "E_CONNECTOR_NO_ROUTE" });
    });
    expect(await github.deliver(target, "push", { repository })).toMatchObject({
      status: 422,
      answer: { error: { code: "E_CONNECTOR_NO_ROUTE" } },
    });
  });

  it("reads upstream's config names and secrets", () => {
    expect(
      githubSettings({
        config: { GITHUB_WEBHOOK_PORT: 9000, GITHUB_WEBHOOK_PATH: "hooks/github" },
        secrets: { GITHUB_WEBHOOK_SECRET: "s" },
      }),
    ).toMatchObject({ port: 9000, path: "/hooks/github", secret: "s" });
  });
});
