/**
 * What a Connection's ingress rules may match, and its `verify`: the built-in connectors' events carry the
 * public Goondan names (`stdin_message`, `webhook_message`), their older names still match as aliases (the
 * loaded rule holds the current name), a webhook renamed by `config.event` is matched by its new name, and a
 * rule no event can match is an error. `verify.webhook.signingSecret` reaches the connector as a secret.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { findResource, selectSwarm } from "../../src/config/resolve.ts";
import { requiredEnv } from "../../src/config/value-source.ts";
import { baseBundle, header, removeBundles, writeBundle } from "./temp-bundle.ts";

afterAll(removeBundles);

const connection = (spec: string, name = "c") => `${header("Connection", name)}spec:\n${spec}`;
const rule = (event: string) => `  ingress:\n    rules:\n      - match: { event: ${event} }\n`;

async function loadWith(extra: string[]) {
  return loadBundle(writeBundle(baseBundle({ extra })), { checkModules: false });
}

async function loadedRules(extra: string[]) {
  const result = await loadWith(extra);
  expect(result.errors).toEqual([]);
  return findResource(result.bundle!, "Connection", "c")!.spec.ingress.rules.map((item) => item.match.event);
}

describe("event names of the built-in connectors", () => {
  it("matches the cli's stdin_message, and its older name user_input as the same event", async () => {
    expect(await loadedRules([connection(`  connectorRef: Connector/cli\n${rule("stdin_message")}`)])).toEqual([
      "stdin_message",
    ]);
    expect(
      await loadedRules([
        connection(`  connectorRef: { kind: Connector, name: cli, package: "@goondan/base" }\n${rule("user_input")}`),
      ]),
    ).toEqual(["stdin_message"]);
  });

  it("matches the webhook's webhook_message, and its older name webhook as the same event", async () => {
    expect(await loadedRules([connection(`  connectorRef: Connector/webhook\n${rule("webhook_message")}`)])).toEqual([
      "webhook_message",
    ]);
    expect(await loadedRules([connection(`  connectorRef: Connector/webhook\n${rule("webhook")}`)])).toEqual([
      "webhook_message",
    ]);
  });

  it("matches a webhook event renamed by the Connection's config.event by that name only", async () => {
    const renamed = (event: string) =>
      connection(`  connectorRef: Connector/webhook\n  config: { event: chat.message }\n${rule(event)}`);
    expect(await loadedRules([renamed("chat.message")])).toEqual(["chat.message"]);
    const result = await loadWith([renamed("webhook_message")]);
    expect(result.errors.map((issue) => [issue.code, issue.path])).toEqual([
      ["E_CONFIG_UNKNOWN_EVENT", "goondan.yaml#4.spec.ingress.rules[0].match.event"],
    ]);
    expect(result.errors[0]?.message).toContain("chat.message (set by config.event)");
  });

  it("leaves rules unjudged when the event name comes from an env var", async () => {
    expect(
      await loadedRules([
        connection(
          `  connectorRef: Connector/webhook\n  config: { event: { valueFrom: { env: HOOK_EVENT } } }\n${rule("anything")}`,
        ),
      ]),
    ).toEqual(["anything"]);
  });

  it("refuses a rule for an event the connector never emits, naming the events it does emit", async () => {
    const result = await loadWith([connection(`  connectorRef: Connector/cli\n${rule("stdin_mesage")}`)]);
    expect(result.valid).toBe(false);
    const [issue] = result.errors;
    expect([issue?.code, issue?.path, issue?.severity]).toEqual([
      "E_CONFIG_UNKNOWN_EVENT",
      "goondan.yaml#4.spec.ingress.rules[0].match.event",
      "error",
    ]);
    expect(issue?.message).toContain("stdin_message (or user_input)");
    expect(issue?.suggestion).toBe('did you mean "stdin_message"?');
  });

  it("accepts a rule without match.event (a catch-all) whatever the connector emits", async () => {
    const result = await loadWith([
      connection("  connectorRef: Connector/cli\n  ingress: { rules: [{ route: { instanceKey: desk } }] }\n"),
    ]);
    expect(result.errors).toEqual([]);
  });

  it("honours aliases a bundle's own Connector declares", async () => {
    const connector = `${header("Connector", "inbox")}spec:\n  entry: ./c.ts\n  events: [{ name: message_created, aliases: [message] }]\n`;
    const result = await loadBundle(
      writeBundle(
        baseBundle({
          extra: [connector, connection(`  connectorRef: Connector/inbox\n${rule("message")}`)],
          files: { "c.ts": "" },
        }),
      ),
      { checkModules: false },
    );
    expect(result.errors).toEqual([]);
    expect(findResource(result.bundle!, "Connection", "c")!.spec.ingress.rules[0]?.match.event).toBe("message_created");
  });
});

describe("Connection.spec.verify", () => {
  const signed = connection(
    `  connectorRef: Connector/webhook\n  verify:\n    webhook:\n      signingSecret: { valueFrom: { env: HOOK_SIGNING_SECRET } }\n${rule("webhook_message")}`,
  );

  it("is accepted and kept, and hands its signing secret to the connector as secrets.signingSecret", async () => {
    const result = await loadWith([signed]);
    expect(result.errors).toEqual([]);
    const spec = findResource(result.bundle!, "Connection", "c")!.spec;
    expect(spec.verify).toEqual({ webhook: { signingSecret: { valueFrom: { env: HOOK_SIGNING_SECRET_NAME } } } });
    expect(spec.secrets).toEqual({ signingSecret: { valueFrom: { env: HOOK_SIGNING_SECRET_NAME } } });
  });

  it("makes its env var one the Swarm needs to run", async () => {
    const bundle = (await loadWith([signed])).bundle!;
    expect(requiredEnv(bundle, selectSwarm(bundle))).toContainEqual({
      name: HOOK_SIGNING_SECRET_NAME,
      path: "goondan.yaml#4.spec.verify.webhook.signingSecret",
    });
  });

  it("keeps other secrets next to the signing secret", async () => {
    const result = await loadWith([
      connection(
        `  connectorRef: Connector/webhook\n  secrets: { TOKEN: { value: t } }\n  verify: { webhook: { signingSecret: { value: s } } }\n`,
      ),
    ]);
    expect(findResource(result.bundle!, "Connection", "c")!.spec.secrets).toEqual({
      TOKEN: { value: "t" },
      signingSecret: { value: "s" },
    });
  });
});

const HOOK_SIGNING_SECRET_NAME = "HOOK_SIGNING_SECRET";
