/**
 * An agent's blueprint (src/agent/instance/agent-blueprint.ts) is built once per bundle, agent and env, and shared by
 * the instances a process opens: the Tools' config resolved once. One that cannot be built is not
 * kept, so the next instance asks again; another env or a reloaded bundle gets a blueprint of its own.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentBlueprint } from "../../src/agent/instance/agent-blueprint.ts";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";

const dir = mkdtempSync(join(tmpdir(), "goondan-blueprint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, "tools"));
writeFileSync(join(dir, "tools", "echo.ts"), "export const handlers = { say: async () => ({}) };\n");
writeFileSync(
  join(dir, "goondan.yaml"),
  [
    `kind: Model\nmetadata: { name: m }\nspec: { provider: openai-compatible, model: x, endpoint: "http://127.0.0.1:9", apiKey: { valueFrom: { env: BLUEPRINT_KEY } } }`,
    `kind: Tool\nmetadata: { name: echo }\nspec:\n  entry: ./tools/echo.ts\n  config: { token: { valueFrom: { env: BLUEPRINT_TOKEN } } }\n  exports: [{ name: say, description: Say., parameters: { type: object } }]`,
    `kind: Agent\nmetadata: { name: a }\nspec: { modelConfig: { modelRef: Model/m }, prompt: { system: hi }, tools: [Tool/echo] }`,
    `kind: Swarm\nmetadata: { name: s }\nspec: { entryAgent: Agent/a, agents: [Agent/a] }`,
  ]
    .map((doc) => `apiVersion: goondan.ai/v1\n${doc}\n`)
    .join("---\n"),
);
const env = { BLUEPRINT_KEY: "key-0123456789", BLUEPRINT_TOKEN: "token-0123456789" };

describe("an agent's blueprint", () => {
  it("is built once for a bundle, agent and env: the tools' config resolved, the secrets listed", async () => {
    const bundle = await loadBundleOrThrow(dir, { checkModules: false });
    const first = await agentBlueprint({ bundle, agent: "a", env });
    const again = await agentBlueprint({ bundle, agent: "a", env });
    expect(again).toBe(first);
    expect(first.tools[0]?.spec.config).toEqual({ token: "token-0123456789" });
    expect(first.secrets.sort()).toEqual(["key-0123456789", "token-0123456789"]);
    expect(first.limited).toBe(false);
    expect(first.swarm.metadata.name).toBe("s");
  });

  it("is built again for another env or another load of the bundle", async () => {
    const bundle = await loadBundleOrThrow(dir, { checkModules: false });
    const first = await agentBlueprint({ bundle, agent: "a", env });
    const otherEnv = await agentBlueprint({
      bundle,
      agent: "a",
      env: { ...env, BLUEPRINT_TOKEN: "another-token-000" },
    });
    expect(otherEnv).not.toBe(first);
    expect(otherEnv.tools[0]?.spec.config).toEqual({ token: "another-token-000" });
    const reloaded = await loadBundleOrThrow(dir, { checkModules: false });
    expect(await agentBlueprint({ bundle: reloaded, agent: "a", env })).not.toBe(first);
  });

  it("is not kept when it cannot be built: the next instance asks again and gets the same coded error", async () => {
    const bundle = await loadBundleOrThrow(dir, { checkModules: false });
    const missing = { BLUEPRINT_TOKEN: "token-0123456789" };
    for (let attempt = 0; attempt < 2; attempt++)
      await expect(agentBlueprint({ bundle, agent: "a", env: missing })).rejects.toMatchObject({
        code: "E_CONFIG_ENV_MISSING",
      });
    await expect(agentBlueprint({ bundle, agent: "nobody", env })).rejects.toMatchObject({
      code: "E_CONFIG_AGENT_NOT_IN_SWARM",
    });
  });
});
