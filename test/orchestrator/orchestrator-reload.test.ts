import { afterEach, describe, expect, it } from "bun:test";
import { testBundle } from "../fixtures/orchestrator/test-bundle.ts";
import { busyCaller, hasConversation, removeRoots, seedConversation, setup } from "./routing/routing-harness.ts";

afterEach(removeRoots);

describe("reload", () => {
  it("applies a policy change without restarting children when no agent is named", async () => {
    const s = setup();
    busyCaller(s);
    const result = await s.orchestrator.reload({
      bundle: testBundle({ agents: ["a", "b", "c"], policy: { requestTimeoutMs: 5 } }),
      agents: [],
    });
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
    expect(() => s.orchestrator.submit({ input: "three", agent: "b" })).toThrow(
      expect.objectContaining({ code: "E_AGENT_NOT_FOUND" }),
    );
  });

  it("a fresh reload clears the conversation before the new child starts", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    await seedConversation(s, "a", "test-swarm");
    const reloading = s.orchestrator.reload({
      bundle: testBundle({ agents: ["a", "b", "c"] }),
      agents: ["a"],
      fresh: true,
    });
    a.reply();
    a.exit();
    await reloading;
    expect(await hasConversation(s, "a", "test-swarm")).toBe(false);
    expect(s.spawner.of("a")).toHaveLength(2);
  });

  it("a reload fresh for some agents clears only theirs, keeping the other restarted agents' conversations", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    await seedConversation(s, "a", "test-swarm");
    await seedConversation(s, "b", "test-swarm");
    s.orchestrator.submit({ input: "y", agent: "b" });
    const b = s.spawner.latest("b");
    b.ready();
    const reloading = s.orchestrator.reload({
      bundle: testBundle({ agents: ["a", "b", "c"] }),
      agents: ["a", "b"],
      freshAgents: ["b"],
    });
    a.reply();
    a.exit();
    b.reply();
    b.exit();
    await reloading;
    expect(await hasConversation(s, "a", "test-swarm")).toBe(true);
    expect(await hasConversation(s, "b", "test-swarm")).toBe(false);
  });

  describe("options.instances and options.freshInstances", () => {
    /** Two live instances of agent a, each with a stored conversation. */
    async function twoInstances() {
      const s = setup();
      for (const instanceKey of ["k1", "k2"]) await seedConversation(s, "a", instanceKey);
      const children = ["k1", "k2"].map((instanceKey) => {
        s.orchestrator.submit({ input: "hi", agent: "a", instanceKey });
        const child = s.spawner.latest("a", instanceKey);
        child.ready();
        return { child };
      });
      return { s, k1: children[0]!, k2: children[1]! };
    }

    it("restarts and clears only the named instance, leaving its agent's other instance running with its conversation", async () => {
      const { s, k1, k2 } = await twoInstances();
      const reloading = s.orchestrator.reload({
        bundle: testBundle({ agents: ["a", "b", "c"] }),
        agents: [],
        instances: [{ agent: "a", instanceKey: "k1" }],
        freshInstances: [{ agent: "a", instanceKey: "k1" }],
      });
      expect(k1.child.sent.at(-1)).toMatchObject({ type: "shutdown", payload: { reason: "reload" } });
      expect(k2.child.sent.some((message) => message.type === "shutdown")).toBe(false);
      k1.child.reply();
      k1.child.exit();
      expect(await reloading).toEqual({ restarted: ["a/k1"] });
      expect(await hasConversation(s, "a", "k1")).toBe(false);
      expect(await hasConversation(s, "a", "k2")).toBe(true);
      expect(s.spawner.of("a", "k1")).toHaveLength(2);
      expect(s.spawner.of("a", "k2")).toHaveLength(1);
    });

    it("restarts every instance of a named agent but clears only the fresh instance's conversation", async () => {
      const { s, k1, k2 } = await twoInstances();
      const reloading = s.orchestrator.reload({
        bundle: testBundle({ agents: ["a", "b", "c"] }),
        agents: ["a"],
        freshInstances: [{ agent: "a", instanceKey: "k2" }],
      });
      for (const { child } of [k1, k2]) {
        child.reply();
        child.exit();
      }
      expect(await reloading).toEqual({ restarted: ["a/k1", "a/k2"] });
      expect(await hasConversation(s, "a", "k1")).toBe(true);
      expect(await hasConversation(s, "a", "k2")).toBe(false);
    });

    it("clears a named instance that no supervisor holds (only on disk) without starting it", async () => {
      const s = setup();
      await seedConversation(s, "a", "stored");
      const result = await s.orchestrator.reload({
        bundle: testBundle({ agents: ["a", "b", "c"] }),
        agents: [],
        instances: [{ agent: "a", instanceKey: "stored" }],
        freshInstances: [{ agent: "a", instanceKey: "stored" }],
      });
      expect(result).toEqual({ restarted: ["a/stored"] });
      expect(await hasConversation(s, "a", "stored")).toBe(false);
      expect(s.spawner.of("a")).toHaveLength(0);
    });

    it("reports nothing for a named instance that has neither a supervisor nor a conversation", async () => {
      const s = setup();
      const result = await s.orchestrator.reload({
        bundle: testBundle({ agents: ["a", "b", "c"] }),
        agents: [],
        instances: [{ agent: "a", instanceKey: "ghost" }],
        freshInstances: [{ agent: "a", instanceKey: "ghost" }],
      });
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
