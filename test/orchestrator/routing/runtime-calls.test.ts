import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundle, loadBundleOrThrow } from "../../../src/config/load-bundle.ts";
import { createRestartCoordinator } from "../../../src/orchestrator/reload/restart-coordinator.ts";
import { Orchestrator } from "../../../src/orchestrator/orchestrator.ts";
import { writeSwarmBundle } from "../../fixtures/orchestrator/real-swarm.ts";
import { FakeSpawner } from "../../helpers/fake-spawner.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";
import { busyCaller, call, delegateResults, removeRoots, roots, setup, tick } from "./routing-harness.ts";

afterEach(removeRoots);

describe("runtime send, spawn, list, catalog, restart", () => {
  it("send delivers without a replyTo and never answers", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    expect(await call(a, "send", { target: "b", input: "fyi" })).toMatchObject({
      ok: true,
      value: { eventId: expect.any(String) },
    });
    const b = s.spawner.latest("b");
    b.ready();
    expect(b.lastEvent().replyTo).toBeUndefined();
    b.reply();
    expect(delegateResults(a)).toEqual([]);
  });

  it("spawn starts an instance without an event; list shows it; catalog lists the swarm", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    expect(await call(a, "spawn", { target: "c", instanceKey: "w1" })).toMatchObject({
      ok: true,
      value: { agent: "c", instanceKey: "w1", status: "spawning" },
    });
    expect(s.spawner.of("c", "w1")).toHaveLength(1);
    const listed = await call(a, "list", {});
    expect(
      (listed.value as { instances: { agent: string }[] }).instances.map((instance) => instance.agent).sort(),
    ).toEqual(["a", "c"]);
    expect(await call(a, "catalog", {})).toMatchObject({
      ok: true,
      value: {
        agents: [
          { name: "a", description: "the a agent", entry: true },
          { name: "b", entry: false },
          { name: "c", entry: false },
        ],
      },
    });
  });

  it("restart asks the restart requester, whose afterTurn settles when the calling turn committed", async () => {
    let afterTurn: Promise<unknown> | undefined;
    const s = setup({
      restarts: {
        request: async (request) => {
          afterTurn = request.afterTurn;
          return { accepted: true, issues: [] };
        },
      },
    });
    const { a } = busyCaller(s);
    expect(await call(a, "restart", { reason: "new tool" })).toMatchObject({
      ok: true,
      value: { accepted: true, issues: [] },
    });
    let committed = false;
    void afterTurn?.then(() => (committed = true));
    await tick();
    expect(committed).toBe(false);
    a.reply();
    await tick();
    expect(committed).toBe(true);
  });

  it("restart is refused with E_RESTART_UNAVAILABLE when the orchestrator runs without a restart requester", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    expect(await call(a, "restart", { reason: "new tool" })).toMatchObject({
      ok: true,
      value: { accepted: false, issues: [{ code: "E_RESTART_UNAVAILABLE" }] },
    });
  });

  it("a request while the orchestrator stops is refused with E_ORCHESTRATOR_STOPPING", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    const stopping = s.orchestrator.shutdown({ reason: "test", gracePeriodMs: 10 });
    expect(await call(a, "request", { target: "b", input: "late" })).toMatchObject({
      ok: false,
      error: { code: "E_ORCHESTRATOR_STOPPING" },
    });
    s.clock.advance(10);
    await stopping;
  });

  it("an unknown method is a structured error", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    expect(await call(a, "teleport" as never, {})).toMatchObject({
      ok: false,
      error: { code: "E_RUNTIME_UNKNOWN_METHOD" },
    });
  });
});

describe("runtime restart with the default handler", () => {
  async function realBundleSetup() {
    const dir = writeSwarmBundle({ endpoint: "http://127.0.0.1:9/v1" });
    roots.push(dir);
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-restart-"));
    roots.push(stateRoot);
    const spawner = new FakeSpawner();
    const clock = new ManualClock();
    // As the daemon wires them: the one restart coordinator validates on disk and reloads the orchestrator.
    const coordinator = createRestartCoordinator({
      loadBundle: () => loadBundle(dir),
      reload: (plan) => orchestrator.reload(plan).then(() => undefined),
      clock,
    });
    const orchestrator: Orchestrator = new Orchestrator({
      bundle: await loadBundleOrThrow(dir),
      stateRoot,
      spawner,
      clock,
      restarts: coordinator,
    });
    const submitted = orchestrator.submit({ input: "fix yourself" });
    const child = spawner.latest("coordinator");
    child.ready();
    return { dir, orchestrator, spawner, clock, coordinator: child, submitted };
  }

  it("validates the bundle on disk, answers accepted, and reloads after the calling turn committed", async () => {
    const s = await realBundleSetup();
    expect(await call(s.coordinator, "restart", { reason: "new prompt" })).toMatchObject({
      ok: true,
      value: { accepted: true, issues: [] },
    });
    s.clock.advance(1000);
    await tick();
    expect(s.coordinator.sent.some((message) => message.type === "shutdown")).toBe(false);
    s.coordinator.reply({ response: "restarting soon" });
    expect((await s.submitted.outcome).response).toBe("restarting soon");
    for (let i = 0; i < 200 && !s.coordinator.sent.some((message) => message.type === "shutdown"); i++)
      await Bun.sleep(5);
    expect(s.coordinator.sent.at(-1)).toMatchObject({ type: "shutdown", payload: { reason: "reload" } });
  });

  it("answers accepted: false with the validation issues when the bundle on disk is invalid", async () => {
    const s = await realBundleSetup();
    writeFileSync(
      join(s.dir, "goondan.yaml"),
      "apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: broken }\nspec: {}\n",
    );
    const answer = await call(s.coordinator, "restart", { reason: "broken" });
    expect(answer).toMatchObject({ ok: true, value: { accepted: false } });
    expect((answer.value as { issues: { code: string }[] }).issues.length).toBeGreaterThan(0);
    expect((answer.value as { issues: { code: string }[] }).issues[0]?.code).toMatch(/^E_CONFIG_/);
  });
});
