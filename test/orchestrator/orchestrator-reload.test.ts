import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { testBundle } from "../fixtures/orchestrator/test-bundle.ts";
import { busyCaller, removeRoots, setup } from "./routing-harness.ts";

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
