/**
 * Good bundles: every kind and every Model provider loads, specs come out with SPEC §1 defaults applied
 * and refs normalized, the public Goondan format loads unchanged, and YAML features work.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { loadBundle, loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import { findResource } from "../../src/config/resolve.ts";
import { BUILTIN_PACKAGE, KINDS, type Bundle } from "../../src/config/types.ts";
import { ConfigError } from "../../src/shared/errors.ts";
import { baseBundle, removeBundles, writeBundle } from "./temp-bundle.ts";

afterAll(removeBundles);

const FIXTURES = join(import.meta.dir, "../fixtures/bundles");

async function load(name: string): Promise<Bundle> {
  const result = await loadBundle(join(FIXTURES, name));
  expect(result.errors).toEqual([]);
  expect(result.valid).toBe(true);
  return result.bundle as Bundle;
}

function local<K extends (typeof KINDS)[number]>(bundle: Bundle, kind: K, name: string) {
  const resource = findResource(bundle, kind, name);
  if (!resource || resource.source.package === BUILTIN_PACKAGE) throw new Error(`expected a local ${kind}/${name}`);
  return resource;
}

describe("a bundle of every kind", () => {
  it("loads without errors or warnings and holds every kind locally", async () => {
    const result = await loadBundle(join(FIXTURES, "every-kind"));
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    const kinds = new Set(
      result.bundle?.resources
        .filter((resource) => resource.source.package !== BUILTIN_PACKAGE)
        .map((resource) => resource.kind),
    );
    expect([...kinds].sort()).toEqual([...KINDS].sort());
  });

  it("records the bundle dir, the file and each resource's document index", async () => {
    const bundle = await load("every-kind");
    expect(bundle.dir).toBe(join(FIXTURES, "every-kind"));
    expect(bundle.file).toBe(join(FIXTURES, "every-kind", "goondan.yaml"));
    const tool = local(bundle, "Tool", "notes");
    expect(tool.source).toEqual({ file: bundle.file, docIndex: 6, baseDir: bundle.dir, package: "every-kind" });
  });

  it("loads a Model of each provider with its options", async () => {
    const bundle = await load("every-kind");
    expect(
      ["claude", "gpt", "gemini", "local", "demo"].map((name) => local(bundle, "Model", name).spec.provider),
    ).toEqual(["anthropic", "openai", "google", "openai-compatible", "replay"]);
    expect(local(bundle, "Model", "gpt").spec).toEqual({
      provider: "openai",
      model: "gpt-5",
      apiKey: { valueFrom: { secretRef: { ref: "Secret/openai", key: "api-key" } } },
      endpoint: "https://api.openai.com/v1",
      options: { organization: "org-123" },
      capabilities: { streaming: true, toolCalling: true },
    });
    expect(local(bundle, "Model", "local").spec.endpoint).toBe("http://127.0.0.1:11434/v1");
    expect(local(bundle, "Model", "demo").spec.options).toEqual({ cassette: "./cassettes/demo.jsonl" });
  });

  it("normalizes Package dependencies written as strings and as {name, version}", async () => {
    const bundle = await load("every-kind");
    expect(local(bundle, "Package", "every-kind").spec).toEqual({
      version: "1.2.3",
      description: "One resource of each kind",
      dependencies: ["@goondan/base", "@acme/extras"],
      dependencyVersions: { "@acme/extras": "^2.0.0" },
    });
    expect(local(bundle, "Package", "every-kind").metadata.labels).toEqual({ tier: "test" });
  });

  it("normalizes every ref form to {kind, name, package?} and marks built-ins", async () => {
    const bundle = await load("every-kind");
    const planner = local(bundle, "Agent", "planner");
    expect(planner.spec.modelConfig.modelRef).toEqual({ kind: "Model", name: "claude" });
    expect(planner.spec.tools).toEqual([
      { kind: "Tool", name: "notes" },
      { kind: "Tool", name: "agents", package: BUILTIN_PACKAGE },
      { kind: "Tool", name: "bash", package: BUILTIN_PACKAGE },
    ]);
    expect(local(bundle, "Agent", "writer").spec.modelConfig.modelRef).toEqual({ kind: "Model", name: "demo" });
    expect(local(bundle, "Swarm", "team").spec.entryAgent).toEqual({ kind: "Agent", name: "planner" });
    expect(local(bundle, "Swarm", "team").spec.agents).toEqual([
      { kind: "Agent", name: "planner" },
      { kind: "Agent", name: "writer" },
    ]);
  });

  it("turns Agent extensions into {ref, config?}", async () => {
    const planner = local(await load("every-kind"), "Agent", "planner");
    expect(planner.spec.extensions).toEqual([
      { ref: { kind: "Extension", name: "memory" } },
      { ref: { kind: "Extension", name: "memory" }, config: { window: 5, store: { path: "./planner-memory" } } },
      { ref: { kind: "Extension", name: "message-window", package: BUILTIN_PACKAGE } },
    ]);
  });

  it("keeps model params, including ones goondan does not name", async () => {
    const planner = local(await load("every-kind"), "Agent", "planner");
    expect(planner.spec.modelConfig.params).toEqual({ temperature: 0.2, maxTokens: 2048, topP: 0.9, seed: 7 });
    expect(planner.spec.requiredTools).toEqual(["notes__add"]);
    expect(planner.spec.description).toBe("Plans and delegates");
    expect(local(await load("every-kind"), "Agent", "writer").spec.modelConfig.params).toEqual({});
  });

  it("applies Swarm defaults: instanceKey = metadata.name and the policy, merged field by field", async () => {
    const team = local(await load("every-kind"), "Swarm", "team");
    expect(team.spec.instanceKey).toBe("team");
    expect(team.spec.policy).toEqual({
      maxStepsPerTurn: 8,
      maxDelegationDepth: 8,
      requestTimeoutMs: 60000,
      shutdown: { gracePeriodSeconds: 5 },
      restart: { maxConsecutiveCrashes: 3, initialBackoffMs: 1000, maxBackoffMs: 300000 },
      lifecycle: { idleSeconds: 600, maxInstances: 10_000, heartbeatTimeoutSeconds: 60 },
    });
  });

  it("applies Tool defaults: errorMessageLimit 1000 and parameters {type: object, properties: {}}", async () => {
    const notes = local(await load("every-kind"), "Tool", "notes");
    expect(notes.spec.errorMessageLimit).toBe(400);
    expect(notes.spec.config).toEqual({ root: "./notes" });
    expect(notes.spec.exports[1]).toEqual({
      name: "list-all",
      parameters: { type: "object", properties: {} },
      timeoutMs: 5000,
    });
    const dir = writeBundle(baseBundle());
    const echo = findResource(await loadBundleOrThrow(dir), "Tool", "echo");
    expect(echo?.spec.errorMessageLimit).toBe(1000);
  });

  it("fills in a Connection's swarmRef with the first Swarm and its ingress rules' defaults", async () => {
    const connection = local(await load("every-kind"), "Connection", "inbox-to-team");
    expect(connection.spec.swarmRef).toEqual({ kind: "Swarm", name: "team" });
    expect(connection.spec.connectorRef).toEqual({ kind: "Connector", name: "inbox" });
    expect(connection.spec.ingress.rules).toEqual([
      {
        match: { event: "message", properties: { chat_id: "42" } },
        route: { agentRef: { kind: "Agent", name: "writer" }, instanceKey: "chat-42" },
      },
      { match: { event: "message" }, route: { instanceKeyProperty: "chat_id", instanceKeyPrefix: "chat:" } },
      { match: {}, route: {} },
    ]);
    expect(connection.spec.config).toEqual({
      PORT: { value: "3102" },
      MODE: "fast",
      HOOK_URL: { valueFrom: { env: "INBOX_HOOK_URL" } },
    });
    expect(connection.spec.secrets).toEqual({
      TOKEN: { valueFrom: { env: "INBOX_TOKEN" } },
      SIGNING: { valueFrom: { secretRef: { ref: "Secret/inbox", key: "signing_secret" } } },
    });
  });

  it("loads Extension and Connector specs", async () => {
    const bundle = await load("every-kind");
    expect(local(bundle, "Extension", "memory").spec).toEqual({
      entry: "./extensions/memory.ts",
      config: { window: 20, store: { kind: "file", path: "./memory" } },
    });
    expect(local(bundle, "Connector", "inbox").spec).toEqual({
      entry: "./connectors/inbox.ts",
      events: [{ name: "message", properties: { chat_id: { type: "string" } } }, { name: "command" }],
    });
  });

  it("normalizes an Eval: input as one turn, lists from single values, the judge threshold kept", async () => {
    const bundle = await load("every-kind");
    const evaluation = local(bundle, "Eval", "smoke");
    expect(evaluation.spec.swarm).toBe("team");
    expect(evaluation.spec.cases.map((entry) => entry.turns)).toEqual([
      ["Note that the meeting moved to Friday."],
      ["Hello.", "And again."],
    ]);
    expect(evaluation.spec.cases[0]?.expect).toMatchObject({
      regex: ["/friday/i"],
      notToolCalled: ["notes__list-all"],
      judge: { model: { kind: "Model", name: "demo" }, threshold: 0.5 },
    });
  });

  it("lists local resources first, then the built-ins without their Package document", async () => {
    const bundle = await load("every-kind");
    const firstBuiltin = bundle.resources.findIndex((resource) => resource.source.package === BUILTIN_PACKAGE);
    expect(firstBuiltin).toBe(14);
    expect(bundle.resources.slice(firstBuiltin).every((resource) => resource.source.package === BUILTIN_PACKAGE)).toBe(
      true,
    );
    expect(
      bundle.resources.some(
        (resource) =>
          resource.kind === "Package" &&
          resource.source.package === BUILTIN_PACKAGE &&
          resource.metadata.name === BUILTIN_PACKAGE,
      ),
    ).toBe(false);
  });
});

describe("a bundle in the public Goondan format", () => {
  it("loads unchanged, with refs to @goondan/base tools, extensions and connectors", async () => {
    const bundle = await load("public-format");
    const worker = local(bundle, "Agent", "worker");
    expect(worker.spec.tools.map((ref) => `${ref.package}:${ref.name}`)).toEqual(
      ["bash", "file-system", "http-fetch", "json-query", "text-transform"].map((name) => `${BUILTIN_PACKAGE}:${name}`),
    );
    const connection = local(bundle, "Connection", "cli-to-brain");
    expect(connection.spec.connectorRef).toEqual({ kind: "Connector", name: "cli", package: BUILTIN_PACKAGE });
  });

  it("reads the `prompts:` spelling as the Agent prompt", async () => {
    const coordinator = local(await load("public-format"), "Agent", "coordinator");
    expect(coordinator.spec.prompt).toEqual({ systemRef: "./prompts/coordinator.system.md" });
  });

  it("accepts Package dependencies as {name, version} and the public policy fields", async () => {
    const bundle = await load("public-format");
    expect(local(bundle, "Package", "@samples/brain-lite").spec.dependencyVersions).toEqual({
      "@goondan/base": "^0.0.3",
    });
    expect(local(bundle, "Swarm", "brain").spec.policy.lifecycle).toEqual({
      idleSeconds: 600,
      maxInstances: 10_000,
      heartbeatTimeoutSeconds: 60,
      ttlSeconds: 86400,
      gcGraceSeconds: 60,
    });
    expect(local(bundle, "Swarm", "brain").spec.policy.shutdown.gracePeriodSeconds).toBe(300);
  });

  it("gives its resources the bundle's package name", async () => {
    const bundle = await load("public-format");
    expect(local(bundle, "Agent", "worker").source.package).toBe("@samples/brain-lite");
  });
});

describe("loadBundle targets and options", () => {
  it("accepts the path of goondan.yaml as well as the bundle directory", async () => {
    const result = await loadBundle(join(FIXTURES, "every-kind", "goondan.yaml"));
    expect(result.valid).toBe(true);
    expect(result.bundle?.dir).toBe(join(FIXTURES, "every-kind"));
  });

  it("does not import Tool modules with checkModules: false", async () => {
    const dir = writeBundle(baseBundle({ files: { "tools/echo.ts": "throw new Error('must not load');\n" } }));
    expect((await loadBundle(dir, { checkModules: false })).valid).toBe(true);
    expect((await loadBundle(dir)).errors.map((issue) => issue.code)).toEqual(["E_CONFIG_MODULE_LOAD"]);
  });

  it("resolves a bare Tool ref to a local Tool before a built-in of the same name", async () => {
    const files = baseBundle();
    files["goondan.yaml"] = files["goondan.yaml"]!.replace(/name: echo/, "name: bash").replace(
      "Tool/echo",
      "Tool/bash",
    );
    const bundle = await loadBundleOrThrow(writeBundle(files));
    const agent = findResource(bundle, "Agent", "a");
    expect(agent?.spec.tools).toEqual([{ kind: "Tool", name: "bash" }]);
    expect(findResource(bundle, "Tool", "bash")?.source.package).toBeUndefined();
    expect(findResource(bundle, "Tool", "bash", BUILTIN_PACKAGE)?.source.package).toBe(BUILTIN_PACKAGE);
  });

  it("reads anchors, aliases, block scalars and flow lists", async () => {
    const dir = writeBundle({
      ...baseBundle(),
      "goondan.yaml": [
        "apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: m2 }\nspec:\n  provider: anthropic\n  model: claude-sonnet-4-5",
        "apiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: echo }\nspec: { entry: ./tools/echo.ts, exports: [{ name: say }] }",
        "apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: a }\nspec:\n  modelConfig: { modelRef: Model/m2 }\n  prompt:\n    system: >\n      folded\n      text\n  tools: [Tool/echo]",
        "apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: s }\nspec:\n  agents: [&entry Agent/a]\n  entryAgent: *entry",
      ].join("\n---\n"),
    });
    const bundle = await loadBundleOrThrow(dir);
    expect(findResource(bundle, "Model", "m2")?.spec.model).toBe("claude-sonnet-4-5");
    expect(findResource(bundle, "Swarm", "s")?.spec.entryAgent).toEqual({ kind: "Agent", name: "a" });
    expect(findResource(bundle, "Agent", "a")?.spec.prompt.system).toBe("folded text\n");
  });
});

describe("literal values", () => {
  it("turns a Connection config {value} into a string ValueSource and keeps plain values", async () => {
    const connector =
      "apiVersion: goondan.ai/v1\nkind: Connector\nmetadata: { name: inbox }\nspec: { entry: ./c.ts, events: [{ name: message }] }\n";
    const connection =
      "apiVersion: goondan.ai/v1\nkind: Connection\nmetadata: { name: c }\nspec:\n  connectorRef: Connector/inbox\n  config: { PORT: { value: 3102 }, LIMITS: { value: 1, extra: 2 }, ON: true }\n";
    const bundle = await loadBundleOrThrow(
      writeBundle(baseBundle({ extra: [connector, connection], files: { "c.ts": "" } })),
    );
    expect(findResource(bundle, "Connection", "c")?.spec.config).toEqual({
      PORT: { value: "3102" },
      LIMITS: { value: 1, extra: 2 },
      ON: true,
    });
  });
});

describe("loadBundleOrThrow", () => {
  it("throws a ConfigError E_CONFIG_INVALID listing every error path", async () => {
    const files = baseBundle();
    files["goondan.yaml"] = files["goondan.yaml"]!.replace("Model/m", "Model/nope").replace(
      "Agent/a\n  agents",
      "Agent/zz\n  agents",
    );
    const dir = writeBundle(files);
    const error = await loadBundleOrThrow(dir).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe("E_CONFIG_INVALID");
    expect((error as ConfigError).message).toMatch(
      /goondan\.yaml:\d+:\d+: #2\.spec\.modelConfig\.modelRef: E_CONFIG_REF_NOT_FOUND/,
    );
    expect((error as ConfigError).message).toMatch(
      /goondan\.yaml:\d+:\d+: #3\.spec\.entryAgent: E_CONFIG_REF_NOT_FOUND/,
    );
  });
});
