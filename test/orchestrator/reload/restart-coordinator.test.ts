import { describe, expect, it } from "bun:test";
import {
  createRestartCoordinator,
  type LoadedBundle,
  type ReloadPlan,
} from "../../../src/orchestrator/reload/restart-coordinator.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";
import { agent, bundle, model, swarm } from "./bundle-builder.ts";
import type { ConfigIssue } from "../../../src/config/types.ts";

const validBundle = bundle(model("default"), agent("front"), swarm("team", ["front"]));
const brokenIssue: ConfigIssue = {
  code: "E_CONFIG_REF_NOT_FOUND",
  severity: "error",
  message: "Tool/echo not found",
  path: "goondan.yaml#2.spec.tools[0]",
};

function setup(options: { loads?: LoadedBundle[] } = {}) {
  const clock = new ManualClock();
  const plans: ReloadPlan[] = [];
  const queue = [...(options.loads ?? [])];
  let loadCount = 0;
  const coordinator = createRestartCoordinator({
    clock,
    coalesceMs: 300,
    maxWaitMs: 5000,
    loadBundle: async () => {
      loadCount++;
      return queue.length > 1
        ? (queue.shift() as LoadedBundle)
        : (queue[0] ?? { valid: true, bundle: validBundle, errors: [] });
    },
    reload: async (plan) => {
      plans.push(plan);
    },
  });
  const tick = async (ms: number) => {
    clock.advance(ms);
    await coordinator.settled();
  };
  return { clock, plans, coordinator, tick, loads: () => loadCount };
}

describe("createRestartCoordinator", () => {
  it("answers an invalid bundle with its issues and never reloads", async () => {
    const { coordinator, plans, tick, clock } = setup({ loads: [{ valid: false, errors: [brokenIssue] }] });
    const answer = await coordinator.request({ reason: "tool asked" });
    expect(answer).toEqual({
      accepted: false,
      issues: [
        { code: "E_CONFIG_REF_NOT_FOUND", path: "goondan.yaml#2.spec.tools[0]", message: "Tool/echo not found" },
      ],
    });
    expect(clock.pendingDelays()).toEqual([]);
    await tick(1000);
    expect(plans).toEqual([]);
  });

  it("accepts a valid bundle and reloads every agent once the window has passed", async () => {
    const { coordinator, plans, tick } = setup();
    expect(await coordinator.request({ reason: "SIGHUP" })).toEqual({ accepted: true, issues: [] });
    expect(plans).toEqual([]);
    await tick(300);
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatchObject({ bundle: validBundle, fresh: false, reasons: ["SIGHUP"] });
    expect(plans[0]?.agents).toBeUndefined();
  });

  it("coalesces a restart storm into one reload", async () => {
    const { coordinator, plans, tick } = setup();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => coordinator.request({ reason: `storm ${index}` })),
    );
    expect(answers.every((answer) => answer.accepted)).toBe(true);
    await tick(300);
    expect(plans).toHaveLength(1);
    expect(plans[0]?.reasons).toHaveLength(20);
  });

  it("shares one validation among requests that arrive while it runs", async () => {
    const { coordinator, loads, tick } = setup();
    await Promise.all([
      coordinator.request({ reason: "a" }),
      coordinator.request({ reason: "b" }),
      coordinator.request({ reason: "c" }),
    ]);
    expect(loads()).toBe(1);
    await tick(300);
    expect(loads()).toBe(2); // re-validated once more right before reloading
  });

  it("restarts only the named agents, merging the names of coalesced requests", async () => {
    const { coordinator, plans, tick } = setup();
    await coordinator.request({ reason: "a", agent: "writer" });
    await coordinator.request({ reason: "b", agent: "critic", fresh: true });
    await tick(300);
    expect(plans[0]).toMatchObject({ agents: ["critic", "writer"], fresh: false, freshAgents: ["critic"] });
  });

  it("clears only the conversations of the agent a fresh request named when a plain restart of everyone coalesces with it", async () => {
    const { coordinator, plans, tick } = setup();
    await coordinator.request({ reason: "goondan restart --agent other --fresh", agent: "other", fresh: true });
    await coordinator.request({ reason: "SIGHUP" });
    await tick(300);
    expect(plans).toHaveLength(1);
    expect(plans[0]?.agents).toBeUndefined();
    expect(plans[0]).toMatchObject({ fresh: false, freshAgents: ["other"] });
  });

  it("never clears a conversation for plain restarts", async () => {
    const { coordinator, plans, tick } = setup();
    await coordinator.request({ reason: "a", agent: "writer" });
    await coordinator.request({ reason: "b" });
    await tick(300);
    expect(plans[0]?.fresh).toBe(false);
    expect(plans[0]?.freshAgents).toBeUndefined();
  });

  it("clears every restarted instance when a fresh request names no agent", async () => {
    const { coordinator, plans, tick } = setup();
    await coordinator.request({ reason: "a", agent: "writer", fresh: true });
    await coordinator.request({ reason: "b", fresh: true });
    await tick(300);
    expect(plans[0]?.agents).toBeUndefined();
    expect(plans[0]?.fresh).toBe(true);
  });

  it("widens to every agent when any coalesced request names none", async () => {
    const { coordinator, plans, tick } = setup();
    await coordinator.request({ reason: "a", agent: "writer" });
    await coordinator.request({ reason: "b" });
    await tick(300);
    expect(plans[0]?.agents).toBeUndefined();
  });

  describe("request.instanceKey", () => {
    it("restarts and clears only the named instance, not its agent's other instances", async () => {
      const { coordinator, plans, tick } = setup();
      await coordinator.request({ reason: "reset one chat", agent: "front", instanceKey: "user-1", fresh: true });
      await tick(300);
      expect(plans).toHaveLength(1);
      expect(plans[0]).toMatchObject({
        agents: [],
        instances: [{ agent: "front", instanceKey: "user-1" }],
        fresh: false,
        freshInstances: [{ agent: "front", instanceKey: "user-1" }],
      });
      expect(plans[0]?.freshAgents).toBeUndefined();
    });

    it("clears only the fresh instance when a plain restart of its whole agent coalesces with it", async () => {
      const { coordinator, plans, tick } = setup();
      await coordinator.request({ reason: "a", agent: "front" });
      await coordinator.request({ reason: "b", agent: "front", instanceKey: "user-1", fresh: true });
      await tick(300);
      expect(plans[0]).toMatchObject({
        agents: ["front"],
        fresh: false,
        freshInstances: [{ agent: "front", instanceKey: "user-1" }],
      });
      expect(plans[0]?.instances).toBeUndefined(); // covered by the whole agent
      expect(plans[0]?.freshAgents).toBeUndefined();
    });

    it("clears only the fresh instance when a plain restart of everyone coalesces with it", async () => {
      const { coordinator, plans, tick } = setup();
      await coordinator.request({ reason: "a", agent: "front", instanceKey: "user-1", fresh: true });
      await coordinator.request({ reason: "SIGHUP" });
      await tick(300);
      expect(plans[0]?.agents).toBeUndefined();
      expect(plans[0]?.instances).toBeUndefined();
      expect(plans[0]).toMatchObject({ fresh: false, freshInstances: [{ agent: "front", instanceKey: "user-1" }] });
    });

    it("merges two instances of the same agent into one reload, each fresh only if its own request was", async () => {
      const { coordinator, plans, tick } = setup();
      await coordinator.request({ reason: "a", agent: "front", instanceKey: "user-2" });
      await coordinator.request({ reason: "b", agent: "front", instanceKey: "user-1", fresh: true });
      await coordinator.request({ reason: "c", agent: "front", instanceKey: "user-2" });
      await tick(300);
      expect(plans).toHaveLength(1);
      expect(plans[0]?.instances).toEqual([
        { agent: "front", instanceKey: "user-1" },
        { agent: "front", instanceKey: "user-2" },
      ]);
      expect(plans[0]?.freshInstances).toEqual([{ agent: "front", instanceKey: "user-1" }]);
    });

    it("never spreads a fresh instance to its agent, nor a fresh agent's name to another agent's instance", async () => {
      const { coordinator, plans, tick } = setup();
      await coordinator.request({ reason: "a", agent: "writer", fresh: true });
      await coordinator.request({ reason: "b", agent: "front", instanceKey: "user-1" });
      await coordinator.request({ reason: "c", agent: "writer", instanceKey: "user-9", fresh: true });
      await tick(300);
      expect(plans[0]).toMatchObject({
        agents: ["writer"],
        instances: [{ agent: "front", instanceKey: "user-1" }],
        fresh: false,
        freshAgents: ["writer"],
      });
      expect(plans[0]?.freshInstances).toBeUndefined(); // writer/user-9 is covered by the fresh writer
    });

    it("lists nothing twice when a fresh request for everyone covers the fresh instance", async () => {
      const { coordinator, plans, tick } = setup();
      await coordinator.request({ reason: "a", agent: "front", instanceKey: "user-1", fresh: true });
      await coordinator.request({ reason: "b", fresh: true });
      await tick(300);
      expect(plans[0]).toMatchObject({ fresh: true });
      expect(plans[0]?.freshInstances).toBeUndefined();
      expect(plans[0]?.freshAgents).toBeUndefined();
    });

    it("refuses an instanceKey without its agent and never reloads", async () => {
      const { coordinator, plans, tick } = setup();
      const answer = await coordinator.request({ reason: "a", instanceKey: "user-1", fresh: true });
      expect(answer.accepted).toBe(false);
      expect(answer.issues.map((issue) => issue.code)).toEqual(["E_RESTART_INSTANCE_WITHOUT_AGENT"]);
      await tick(300);
      expect(plans).toEqual([]);
    });
  });

  it("waits for the asking turn to commit before reloading", async () => {
    const { coordinator, plans, tick } = setup();
    let commit = () => {};
    const afterTurn = new Promise<void>((resolve) => (commit = resolve));
    await coordinator.request({ reason: "self-restart", afterTurn });
    const settled = (async () => {
      await tick(300);
    })();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(plans).toHaveLength(0);
    commit();
    await settled;
    expect(plans).toHaveLength(1);
  });

  it("reloads anyway when the asking turn does not commit within maxWaitMs", async () => {
    const { coordinator, plans, clock } = setup();
    await coordinator.request({ reason: "self-restart", afterTurn: new Promise(() => {}) });
    clock.advance(300);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(plans).toHaveLength(0);
    clock.advance(5000);
    await coordinator.settled();
    expect(plans).toHaveLength(1);
  });

  it("skips the reload when the bundle turned invalid between the answer and the restart", async () => {
    const { coordinator, plans, tick } = setup({
      loads: [
        { valid: true, bundle: validBundle, errors: [] },
        { valid: false, errors: [brokenIssue] },
      ],
    });
    expect((await coordinator.request({ reason: "a" })).accepted).toBe(true);
    await tick(300);
    expect(plans).toEqual([]);
  });

  it("starts a new batch for a request arriving after the window closed", async () => {
    const { coordinator, plans, tick } = setup();
    await coordinator.request({ reason: "first" });
    await tick(300);
    await coordinator.request({ reason: "second" });
    await tick(300);
    expect(plans.map((plan) => plan.reasons)).toEqual([["first"], ["second"]]);
  });

  describe("request.relayed", () => {
    it("announces a batch holding a request made on this node, even when a relayed one coalesced with it", async () => {
      const { coordinator, plans, tick } = setup();
      await Promise.all([
        coordinator.request({ reason: "cluster reload 3", relayed: true }),
        coordinator.request({ reason: "POST /v1/restart" }),
      ]);
      await tick(300);
      expect(plans.map((plan) => plan.announce)).toEqual([true]);
    });

    it("announces nothing for a batch made only of requests relayed from another node", async () => {
      const { coordinator, plans, tick } = setup();
      await coordinator.request({ reason: "cluster reload 3", relayed: true, agent: "front" });
      await tick(300);
      expect(plans).toHaveLength(1);
      expect(plans[0]?.announce).toBeUndefined();
      expect(plans[0]?.agents).toEqual(["front"]);
    });
  });

  it("refuses requests after close and drops the waiting batch", async () => {
    const { coordinator, plans, tick } = setup();
    await coordinator.request({ reason: "a" });
    coordinator.close();
    expect((await coordinator.request({ reason: "b" })).accepted).toBe(false);
    await tick(300);
    expect(plans).toEqual([]);
  });
});
