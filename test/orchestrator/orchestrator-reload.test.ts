import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { testBundle } from "../fixtures/orchestrator/test-bundle.ts";
import { busyCaller, removeRoots, setup } from "./routing/routing-harness.ts";

afterEach(removeRoots);

describe("reload", () => {
  it("applies a policy change without restarting children when no agent is named", async () => {
    const s = setup();
    busyCaller(s);
    const result = await s.orchestrator.reload({ bundle: testBundle({ agents: ["a", "b", "c"], policy: { requestTimeoutMs: 5 } }), agents: [] });
    expect(result.restarted).toEqual([]);
    expect(s.orchestrator.swarm.policy.requestTimeoutMs).toBe(5);
    expect(s.spawner.of("a")).toHaveLength(1);
  });

  it("stops the instances of an agent removed from the swarm and does not restart them", async () => {
    const s = setup();
    s.orchestrator.submit({ input: "one", agent: "b" });
    s.orchestrator.submit({ input: "two", agent: "b" });
    const b = s.spawner.latest("b");
    b.ready();
    const reloading = s.orchestrator.reload({ bundle: testBundle({ agents: ["a", "c"] }), agents: [] });
    expect(b.sent.at(-1)).toMatchObject({ type: "shutdown", payload: { reason: "reload" } });
    b.reply();
    b.exit();
    expect(await reloading).toEqual({ restarted: ["b/test-swarm"] });
    expect(s.spawner.of("b")).toHaveLength(1);
    expect(s.orchestrator.processes().map((row) => row.agent)).toEqual([]);
    expect(() => s.orchestrator.submit({ input: "three", agent: "b" })).toThrow(expect.objectContaining({ code: "AGENT_NOT_FOUND" }));
  });

  it("a fresh reload clears the conversation before the new child starts", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    const paths = s.orchestrator.instancePaths("a", "test-swarm");
    mkdirSync(paths.root, { recursive: true });
    writeFileSync(paths.base, "{}\n");
    const reloading = s.orchestrator.reload({ bundle: testBundle({ agents: ["a", "b", "c"] }), agents: ["a"], fresh: true });
    a.reply();
    a.exit();
    await reloading;
    expect(existsSync(paths.base)).toBe(false);
    expect(s.spawner.of("a")).toHaveLength(2);
  });

  it("a reload fresh for some agents clears only theirs, keeping the other restarted agents' conversations", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    const pathsA = s.orchestrator.instancePaths("a", "test-swarm");
    const pathsB = s.orchestrator.instancePaths("b", "test-swarm");
    for (const paths of [pathsA, pathsB]) {
      mkdirSync(paths.root, { recursive: true });
      writeFileSync(paths.base, "{}\n");
    }
    s.orchestrator.submit({ input: "y", agent: "b" });
    const b = s.spawner.latest("b");
    b.ready();
    const reloading = s.orchestrator.reload({ bundle: testBundle({ agents: ["a", "b", "c"] }), agents: ["a", "b"], freshAgents: ["b"] });
    a.reply();
    a.exit();
    b.reply();
    b.exit();
    await reloading;
    expect(existsSync(pathsA.base)).toBe(true);
    expect(existsSync(pathsB.base)).toBe(false);
  });

  describe("options.instances and options.freshInstances", () => {
    /** Two live instances of agent a, each with a stored conversation. */
    function twoInstances() {
      const s = setup();
      const children = ["k1", "k2"].map((instanceKey) => {
        const paths = s.orchestrator.instancePaths("a", instanceKey);
        mkdirSync(paths.root, { recursive: true });
        writeFileSync(paths.base, "{}\n");
        s.orchestrator.submit({ input: "hi", agent: "a", instanceKey });
        const child = s.spawner.latest("a", instanceKey);
        child.ready();
        return { child, paths };
      });
      return { s, k1: children[0]!, k2: children[1]! };
    }

    it("restarts and clears only the named instance, leaving its agent's other instance running with its conversation", async () => {
      const { s, k1, k2 } = twoInstances();
      const reloading = s.orchestrator.reload({ bundle: testBundle({ agents: ["a", "b", "c"] }), agents: [], instances: [{ agent: "a", instanceKey: "k1" }], freshInstances: [{ agent: "a", instanceKey: "k1" }] });
      expect(k1.child.sent.at(-1)).toMatchObject({ type: "shutdown", payload: { reason: "reload" } });
      expect(k2.child.sent.some((message) => message.type === "shutdown")).toBe(false);
      k1.child.reply();
      k1.child.exit();
      expect(await reloading).toEqual({ restarted: ["a/k1"] });
      expect(existsSync(k1.paths.base)).toBe(false);
      expect(existsSync(k2.paths.base)).toBe(true);
      expect(s.spawner.of("a", "k1")).toHaveLength(2);
      expect(s.spawner.of("a", "k2")).toHaveLength(1);
    });

    it("restarts every instance of a named agent but clears only the fresh instance's conversation", async () => {
      const { s, k1, k2 } = twoInstances();
      const reloading = s.orchestrator.reload({ bundle: testBundle({ agents: ["a", "b", "c"] }), agents: ["a"], freshInstances: [{ agent: "a", instanceKey: "k2" }] });
      for (const { child } of [k1, k2]) {
        child.reply();
        child.exit();
      }
      expect(await reloading).toEqual({ restarted: ["a/k1", "a/k2"] });
      expect(existsSync(k1.paths.base)).toBe(true);
      expect(existsSync(k2.paths.base)).toBe(false);
    });

    it("clears a named instance that no supervisor holds (only on disk) without starting it", async () => {
      const s = setup();
      const paths = s.orchestrator.instancePaths("a", "stored");
      mkdirSync(paths.root, { recursive: true });
      writeFileSync(paths.base, "{}\n");
      writeFileSync(paths.runtimeEvents, "{}\n");
      const result = await s.orchestrator.reload({ bundle: testBundle({ agents: ["a", "b", "c"] }), agents: [], instances: [{ agent: "a", instanceKey: "stored" }], freshInstances: [{ agent: "a", instanceKey: "stored" }] });
      expect(result).toEqual({ restarted: ["a/stored"] });
      expect(existsSync(paths.base)).toBe(false);
      expect(existsSync(paths.runtimeEvents)).toBe(true);
      expect(s.spawner.of("a")).toHaveLength(0);
    });

    it("reports nothing for a named instance that has neither a supervisor nor a conversation", async () => {
      const s = setup();
      const result = await s.orchestrator.reload({ bundle: testBundle({ agents: ["a", "b", "c"] }), agents: [], instances: [{ agent: "a", instanceKey: "ghost" }], freshInstances: [{ agent: "a", instanceKey: "ghost" }] });
      expect(result).toEqual({ restarted: [] });
      expect(s.spawner.of("a")).toHaveLength(0);
    });
  });

  it("drains and restarts the named agents' live instances, keeping their queued events", async () => {
    const s = setup();
    const { a, submitted } = busyCaller(s);
    s.orchestrator.submit({ input: "y", agent: "b" });
    s.spawner.latest("b").ready();
    const reloading = s.orchestrator.reload({ bundle: testBundle({ agents: ["a", "b", "c"] }), agents: ["a"] });
    expect(a.sent.at(-1)).toMatchObject({ type: "shutdown", payload: { reason: "reload" } });
    a.reply({ response: "finished before restart" });
    a.exit();
    expect(await reloading).toEqual({ restarted: ["a/test-swarm"] });
    expect((await submitted.outcome).response).toBe("finished before restart");
    expect(s.spawner.of("a")).toHaveLength(2);
    expect(s.spawner.of("b")).toHaveLength(1);
  });
});
