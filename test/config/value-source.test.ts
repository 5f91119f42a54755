/**
 * ValueSource: literal values, env vars, secretRef env naming, and the env vars a selected Swarm needs
 * (only its own models, tools, extensions and connections).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import { selectSwarm } from "../../src/config/resolve.ts";
import {
  agentRequiredEnvNames,
  isValueSource,
  missingEnvIssues,
  requiredEnv,
  resolveConfigValues,
  resolveValueSource,
  secretEnvName,
} from "../../src/config/value-source.ts";
import type { Bundle } from "../../src/config/types.ts";
import type { JsonObject } from "../../src/shared/json.ts";
import { docs, header, removeBundles, writeBundle } from "./temp-bundle.ts";

afterAll(removeBundles);

describe("resolveValueSource", () => {
  const env = { OPENAI_API_KEY: "sk-1", EMPTY: "", GOONDAN_SECRET_SLACK_OAUTH_CLIENT_SECRET: "shh" };

  it("returns a literal value as is", () => {
    expect(resolveValueSource({ value: "plain" }, env)).toBe("plain");
  });

  it("reads valueFrom.env", () => {
    expect(resolveValueSource({ valueFrom: { env: "OPENAI_API_KEY" } }, env)).toBe("sk-1");
  });

  it("treats an unset or empty env var as missing", () => {
    expect(resolveValueSource({ valueFrom: { env: "NOT_SET" } }, env)).toBeUndefined();
    expect(resolveValueSource({ valueFrom: { env: "EMPTY" } }, env)).toBeUndefined();
  });

  it("reads a secretRef from GOONDAN_SECRET_<NAME>_<KEY>", () => {
    expect(
      resolveValueSource({ valueFrom: { secretRef: { ref: "Secret/slack-oauth", key: "client_secret" } } }, env),
    ).toBe("shh");
  });
});

describe("secretEnvName", () => {
  it("upper-cases and turns non-alphanumerics into _", () => {
    expect(secretEnvName({ ref: "Secret/slack-oauth", key: "client_secret" })).toBe(
      "GOONDAN_SECRET_SLACK_OAUTH_CLIENT_SECRET",
    );
    expect(secretEnvName({ ref: "Secret/openai", key: "api-key" })).toBe("GOONDAN_SECRET_OPENAI_API_KEY");
    expect(secretEnvName({ ref: "Secret/a.b", key: "c d" })).toBe("GOONDAN_SECRET_A_B_C_D");
  });
});

describe("isValueSource", () => {
  it("recognizes the three forms and nothing else", () => {
    expect(isValueSource({ value: "x" })).toBe(true);
    expect(isValueSource({ valueFrom: { env: "X" } })).toBe(true);
    expect(isValueSource({ valueFrom: { secretRef: { ref: "Secret/x", key: "k" } } })).toBe(true);
    expect(isValueSource({ value: "x", other: 1 })).toBe(false);
    expect(isValueSource("x")).toBe(false);
  });
});

describe("requiredEnv", () => {
  let bundle: Bundle;

  beforeAll(async () => {
    const model = (name: string, env: string) =>
      `${header("Model", name)}spec: { provider: openai, model: gpt-5, apiKey: { valueFrom: { env: ${env} } } }\n`;
    const agent = (name: string, modelName: string, extra = "") =>
      `${header("Agent", name)}spec:\n  modelConfig: { modelRef: Model/${modelName} }\n  prompt: { system: hi }\n${extra}`;
    const dir = writeBundle({
      "goondan.yaml": docs(
        model("one", "ONE_KEY"),
        model("two", "TWO_KEY"),
        model("unused", "UNUSED_KEY"),
        `${header("Tool", "search")}spec:\n  entry: ./search.ts\n  exports: [{ name: query }]\n  config: { apiKey: { valueFrom: { env: SEARCH_KEY } }, region: eu }\n`,
        `${header("Extension", "audit")}spec:\n  entry: ./audit.ts\n  config: { sink: { token: { valueFrom: { secretRef: { ref: Secret/audit, key: token } } } } }\n`,
        agent(
          "alpha",
          "one",
          "  tools: [Tool/search]\n  extensions: [{ ref: Extension/audit, config: { extra: { valueFrom: { env: ALPHA_EXTRA } } } }]\n",
        ),
        agent("beta", "two"),
        `${header("Swarm", "first")}spec: { entryAgent: Agent/alpha, agents: [Agent/alpha] }\n`,
        `${header("Swarm", "second")}spec: { entryAgent: Agent/beta, agents: [Agent/beta] }\n`,
        `${header("Connector", "hook")}spec: { entry: ./hook.ts, events: [{ name: posted }] }\n`,
        `${header("Connection", "hook-to-second")}spec:\n  connectorRef: Connector/hook\n  swarmRef: Swarm/second\n  config: { PORT: { value: "8080" }, URL: { valueFrom: { env: HOOK_URL } } }\n  secrets: { SIGNING: { valueFrom: { env: HOOK_SIGNING } } }\n`,
      ),
      "search.ts": "export const handlers = { query: () => [] };\n",
      "audit.ts": "export function register() {}\n",
      "hook.ts": "export default async function () {}\n",
    });
    bundle = await loadBundleOrThrow(dir);
  });

  it("lists the model, tool and extension env vars of the selected Swarm's agents, with where they are asked for", () => {
    expect(requiredEnv(bundle, selectSwarm(bundle, "first"))).toEqual([
      { name: "ONE_KEY", path: "goondan.yaml#0.spec.apiKey" },
      { name: "SEARCH_KEY", path: "goondan.yaml#3.spec.config.apiKey" },
      { name: "ALPHA_EXTRA", path: "goondan.yaml#5.spec.extensions[0].config.extra" },
      { name: "GOONDAN_SECRET_AUDIT_TOKEN", path: "goondan.yaml#4.spec.config.sink.token" },
    ]);
  });

  it("includes the selected Swarm's Connections and nothing of other Swarms", () => {
    expect(requiredEnv(bundle, selectSwarm(bundle, "second")).map(({ name }) => name)).toEqual([
      "TWO_KEY",
      "HOOK_URL",
      "HOOK_SIGNING",
    ]);
  });

  it("reports each unset or empty one as E_CONFIG_ENV_MISSING", () => {
    const issues = missingEnvIssues(bundle, selectSwarm(bundle, "second"), { TWO_KEY: "k", HOOK_URL: "" });
    expect(issues.map((issue) => [issue.code, issue.path, issue.severity])).toEqual([
      ["E_CONFIG_ENV_MISSING", "goondan.yaml#10.spec.config.URL", "error"],
      ["E_CONFIG_ENV_MISSING", "goondan.yaml#10.spec.secrets.SIGNING", "error"],
    ]);
    expect(issues[0]?.message).toContain("HOOK_URL");
    expect(
      missingEnvIssues(bundle, selectSwarm(bundle, "second"), { TWO_KEY: "k", HOOK_URL: "u", HOOK_SIGNING: "s" }),
    ).toEqual([]);
  });

  it("asks for the env vars of the public-format bundle's models once per place", async () => {
    const publicBundle = await loadBundleOrThrow(join(import.meta.dir, "../fixtures/bundles/public-format"));
    expect(requiredEnv(publicBundle, selectSwarm(publicBundle))).toEqual([
      { name: "ANTHROPIC_API_KEY", path: "goondan.yaml#1.spec.apiKey" },
      { name: "ANTHROPIC_API_KEY", path: "goondan.yaml#2.spec.apiKey" },
    ]);
  });
});

describe("resolveConfigValues", () => {
  it("replaces every ValueSource inside a config, nested in objects and arrays, and leaves other values alone", () => {
    const config: JsonObject = {
      token: { valueFrom: { env: "SLACK_TOKEN" } },
      nested: { list: [{ value: "literal" }, { valueFrom: { env: "UNSET_ONE" } }, 3] },
      plain: "text",
    };
    expect(resolveConfigValues(config, { SLACK_TOKEN: "xoxb-1" })).toEqual({
      token: "xoxb-1",
      nested: { list: ["literal", null, 3] },
      plain: "text",
    });
  });
});

describe("agentRequiredEnvNames", () => {
  it("names only the env vars of that agent's own model, tools and extensions", async () => {
    const bundle = await loadBundleOrThrow(
      writeBundle({
        "goondan.yaml": docs(
          `${header("Model", "a-model")}spec: { provider: openai, model: gpt-4o, apiKey: { valueFrom: { env: A_KEY } } }`,
          `${header("Model", "b-model")}spec: { provider: openai, model: gpt-4o, apiKey: { valueFrom: { env: B_KEY } } }`,
          `${header("Agent", "a")}spec: { modelConfig: { modelRef: Model/a-model }, prompt: { system: hi } }`,
          `${header("Agent", "b")}spec: { modelConfig: { modelRef: Model/b-model }, prompt: { system: hi } }`,
          `${header("Swarm", "s")}spec: { entryAgent: Agent/a, agents: [Agent/a, Agent/b] }`,
        ),
      }),
      { checkModules: false },
    );
    const agentA = bundle.resources.find((resource) => resource.kind === "Agent" && resource.metadata.name === "a");
    expect(agentRequiredEnvNames(bundle, agentA as never)).toEqual(["A_KEY"]);
  });
});
