import { describe, expect, it } from "bun:test";
import { childEnvironment, isBasicEnvName } from "../../src/supervision/child-environment.ts";
import { Orchestrator } from "../../src/orchestrator/orchestrator.ts";
import { FakeSpawner } from "../helpers/fake-spawner.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { testBundle } from "../fixtures/orchestrator/test-bundle.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

describe("childEnvironment", () => {
  it("keeps the basics and goondan's non-secret settings", () => {
    const env = childEnvironment({
      env: { PATH: "/bin", HOME: "/root", LC_ALL: "C", GOONDAN_LOG_LEVEL: "debug", https_proxy: "http://proxy:3128" },
    });
    expect(env).toEqual({
      PATH: "/bin",
      HOME: "/root",
      LC_ALL: "C",
      GOONDAN_LOG_LEVEL: "debug",
      https_proxy: "http://proxy:3128",
    });
  });

  it("drops API keys, the API token and secrets unless a child's resources name them", () => {
    const source = {
      PATH: "/bin",
      OPENAI_API_KEY: "sk-1",
      ANTHROPIC_API_KEY: "sk-2",
      GOONDAN_API_TOKEN: "tok",
      GOONDAN_SECRET_SLACK_TOKEN: "xoxb",
    };
    expect(childEnvironment({ env: source })).toEqual({ PATH: "/bin" });
    expect(childEnvironment({ env: source, names: ["ANTHROPIC_API_KEY", "NOT_SET"] })).toEqual({
      PATH: "/bin",
      ANTHROPIC_API_KEY: "sk-2",
    });
    expect(isBasicEnvName("GOONDAN_API_TOKEN")).toBe(false);
    expect(isBasicEnvName("GOONDAN_SECRET_X_KEY")).toBe(false);
  });
});

describe("Orchestrator child environment", () => {
  it("spawns an agent with only the basics plus the env vars its own resources name", () => {
    const spawner = new FakeSpawner();
    const bundle = testBundle({ agents: ["a", "b"] });
    const orchestrator = new Orchestrator({
      bundle,
      stateRoot: mkdtempSync(join(tmpdir(), "goondan-env-")),
      spawner,
      clock: new ManualClock(),
      env: { PATH: "/bin", UNRELATED_API_KEY: "sk-x", GOONDAN_API_TOKEN: "tok" },
    });
    orchestrator.submit({ input: "hi" });
    const env = spawner.latest("a").request.env ?? {};
    expect(env.PATH).toBe("/bin");
    expect(env.UNRELATED_API_KEY).toBeUndefined();
    expect(env.GOONDAN_API_TOKEN).toBeUndefined();
    expect(env.GOONDAN_BUNDLE_SNAPSHOT).toBeString();
  });
});
