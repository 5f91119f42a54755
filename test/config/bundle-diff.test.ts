import { describe, expect, it } from "bun:test";
import { affectedAgents, diffBundles, findResource } from "../../src/config/bundle-diff.ts";
import {
  agent,
  bundle,
  connection,
  connector,
  defaultPolicy,
  extension,
  model,
  resource,
  swarm,
  tool,
  BUNDLE_DIR,
} from "../orchestrator/reload/bundle-builder.ts";

const baseline = () =>
  bundle(
    model("default"),
    model("other"),
    tool("echo"),
    tool("shout"),
    extension("memory"),
    agent("planner", { tools: ["echo"], extensions: ["memory"] }),
    agent("writer", { tools: ["shout"], systemRef: "./prompts/writer.md" }),
    swarm("team", ["planner", "writer"]),
  );

describe("diffBundles", () => {
  it("restarts nothing when neither resources nor files changed", () => {
    expect(diffBundles({ previous: baseline(), next: baseline() })).toEqual({
      agents: [],
      swarmChanged: false,
      connections: [],
    });
  });

  it("restarts only the agent whose tool entry file changed", () => {
    const agents = affectedAgents({
      previous: baseline(),
      next: baseline(),
      changedFiles: [`${BUNDLE_DIR}/tools/echo.ts`],
    });
    expect(agents).toEqual(["planner"]);
  });

  it("follows a tool's local imports through filesOf", () => {
    const helper = `${BUNDLE_DIR}/tools/lib/format.ts`;
    const agents = affectedAgents({
      previous: baseline(),
      next: baseline(),
      changedFiles: [helper],
      filesOf: (item) =>
        item.kind === "Tool" && item.metadata.name === "shout" ? [`${BUNDLE_DIR}/tools/shout.ts`, helper] : [],
    });
    expect(agents).toEqual(["writer"]);
  });

  it("restarts the agent whose system prompt file changed", () => {
    expect(
      affectedAgents({ previous: baseline(), next: baseline(), changedFiles: [`${BUNDLE_DIR}/prompts/writer.md`] }),
    ).toEqual(["writer"]);
  });

  it("restarts every agent using a Model whose spec changed", () => {
    const next = baseline();
    next.resources[0] = model("default", "m2");
    expect(affectedAgents({ previous: baseline(), next })).toEqual(["planner", "writer"]);
  });

  it("restarts the agent whose Extension config changed", () => {
    const next = baseline();
    next.resources[4] = extension("memory", { window: 3 });
    expect(affectedAgents({ previous: baseline(), next })).toEqual(["planner"]);
  });

  it("restarts an agent whose own spec changed (a new tool list)", () => {
    const next = baseline();
    next.resources[5] = agent("planner", { tools: ["echo", "shout"], extensions: ["memory"] });
    expect(affectedAgents({ previous: baseline(), next })).toEqual(["planner"]);
  });

  it("restarts an agent switched to another Model even if both Models are unchanged", () => {
    const next = baseline();
    next.resources[6] = agent("writer", { model: "other", tools: ["shout"], systemRef: "./prompts/writer.md" });
    expect(affectedAgents({ previous: baseline(), next })).toEqual(["writer"]);
  });

  it("applies an orchestrator-only swarm-policy change without restarting any agent", () => {
    const policies = [
      { ...defaultPolicy(), maxDelegationDepth: 2 },
      { ...defaultPolicy(), restart: { ...defaultPolicy().restart, maxConsecutiveCrashes: 9 } },
      { ...defaultPolicy(), lifecycle: { ...defaultPolicy().lifecycle, idleSeconds: 5 } },
    ];
    for (const policy of policies) {
      const next = baseline();
      next.resources[7] = swarm("team", ["planner", "writer"], policy);
      expect(diffBundles({ previous: baseline(), next })).toEqual({ agents: [], swarmChanged: true, connections: [] });
    }
  });

  it("restarts the swarm's agents when a policy field their children read changes", () => {
    const policies = [
      { ...defaultPolicy(), maxStepsPerTurn: 4 },
      { ...defaultPolicy(), requestTimeoutMs: 5 },
      { ...defaultPolicy(), shutdown: { gracePeriodSeconds: 1 } },
    ];
    for (const policy of policies) {
      const next = baseline();
      next.resources[7] = swarm("team", ["planner", "writer"], policy);
      expect(diffBundles({ previous: baseline(), next })).toEqual({
        agents: ["planner", "writer"],
        swarmChanged: true,
        connections: [],
      });
    }
  });

  it("stops an agent removed from the bundle and ignores a newly added one", () => {
    const previous = baseline();
    const next = bundle(...previous.resources.filter((item) => item.metadata.name !== "writer"), agent("critic"));
    expect(affectedAgents({ previous, next })).toEqual(["writer"]);
  });

  it("ignores a change to a tool nobody uses", () => {
    const next = bundle(...baseline().resources, tool("unused"));
    expect(affectedAgents({ previous: baseline(), next, changedFiles: [`${BUNDLE_DIR}/tools/unused.ts`] })).toEqual([]);
  });

  it("names connections whose connector file, Connection config or existence changed", () => {
    const previous = bundle(
      ...baseline().resources,
      connector("hook"),
      connection("hook-in", "hook"),
      connector("chat"),
      connection("chat-in", "chat"),
      connection("gone", "chat"),
    );
    const next = bundle(
      ...baseline().resources,
      connector("hook"),
      connection("hook-in", "hook"),
      connector("chat"),
      connection("chat-in", "chat", { port: 1 }),
      connection("fresh", "hook"),
    );
    const diff = diffBundles({ previous, next, changedFiles: [`${BUNDLE_DIR}/connectors/hook.ts`] });
    expect(diff.connections).toEqual(["chat-in", "fresh", "gone", "hook-in"]);
    expect(diff.agents).toEqual([]);
  });
});

describe("findResource", () => {
  it("prefers a local resource over a built-in of the same name unless the ref names @goondan/base", () => {
    const local = tool("bash");
    const builtin = resource(
      "Tool",
      "bash",
      { entry: "./tools/bash.ts", errorMessageLimit: 1000, exports: [] },
      { builtin: true },
    );
    const both = bundle(local, builtin);
    expect(findResource(both, { kind: "Tool", name: "bash" })).toBe(local);
    expect(findResource(both, { kind: "Tool", name: "bash", package: "@goondan/base" })).toBe(builtin);
  });
});
