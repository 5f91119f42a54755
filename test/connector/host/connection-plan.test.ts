import { describe, expect, it } from "bun:test";
import { loadBundle } from "../../../src/config/load-bundle.ts";
import { selectSwarm } from "../../../src/config/resolve.ts";
import { connectorRunSpecs } from "../../../src/connector/host/connection-plan.ts";

const BUNDLE = new URL("../../fixtures/connectors/plan-bundle/", import.meta.url).pathname;

async function load() {
  const result = await loadBundle(BUNDLE);
  if (!result.bundle) throw new Error(`fixture bundle is invalid: ${JSON.stringify(result.errors)}`);
  return { bundle: result.bundle, swarm: selectSwarm(result.bundle) };
}

describe("connectorRunSpecs", () => {
  it("resolves each Connection's connector entry, config and secrets, rules and the Swarm's defaults", async () => {
    const { bundle, swarm } = await load();
    const specs = connectorRunSpecs({ bundle, swarm, env: { PLAN_TEST_SECRET: "s3cret" } });
    expect(specs.map((spec) => spec.connection)).toEqual(["hooks", "terminal"]);
    const [hooks, terminal] = specs;
    expect(hooks).toMatchObject({
      connector: "webhook",
      config: { port: "9911", path: "/ci" },
      secrets: { SIGNING_SECRET: "s3cret" },
      entryAgent: "front",
      swarmInstanceKey: "team",
      stdin: "ignore",
    });
    expect(hooks?.entry.endsWith("/src/base/connectors/webhook.ts")).toBe(true);
    expect(hooks?.rules[0]?.route).toMatchObject({
      agentRef: { kind: "Agent", name: "ops" },
      instanceKeyProperty: "repo",
    });
    expect(terminal).toMatchObject({ connector: "cli", stdin: "inherit", rules: [] });
  });

  it("refuses to start a Connection whose secret env var is unset", async () => {
    const { bundle, swarm } = await load();
    expect(() => connectorRunSpecs({ bundle, swarm, env: {} })).toThrow(
      expect.objectContaining({ code: "E_CONFIG_ENV_MISSING" }),
    );
  });
});
