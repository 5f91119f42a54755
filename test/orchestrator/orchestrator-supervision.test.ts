import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Orchestrator } from "../../src/orchestrator/orchestrator.ts";
import { FakeSpawner } from "../helpers/fake-spawner.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { testBundle, type TestBundleOptions } from "../fixtures/orchestrator/test-bundle.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function setup(options: Partial<TestBundleOptions> = {}, stateRoot?: string) {
  const root = stateRoot ?? mkdtempSync(join(tmpdir(), "goondan-orch-"));
  if (!stateRoot) roots.push(root);
  const spawner = new FakeSpawner();
  const clock = new ManualClock();
  const orchestrator = new Orchestrator({
    bundle: testBundle({ agents: ["a", "b", "c"], ...options }),
    stateRoot: root,
    spawner,
    clock,
  });
  return { orchestrator, spawner, clock, stateRoot: root };
}

const tick = () => Bun.sleep(0);

describe("Orchestrator supervision", () => {
  it("spawns an instance on its first event and settles the outcome from its turn_result", async () => {
    const { orchestrator, spawner } = setup();
    const submitted = orchestrator.submit({ input: "hello" });
    const child = spawner.latest("a");
    expect(child.request.argv).toContain("--instance-key");
    expect(orchestrator.processes()[0]).toMatchObject({ agent: "a", status: "spawning", pid: child.pid });
    child.ready();
    expect(child.lastEvent()).toMatchObject({
      id: submitted.eventId,
      input: "hello",
      agent: "a",
      instanceKey: "test-swarm",
    });
    expect(orchestrator.processes()[0]?.status).toBe("processing");
    child.reply({ response: "hi there" });
    expect(await submitted.outcome).toMatchObject({
      status: "ok",
      response: "hi there",
      agent: "a",
      eventId: submitted.eventId,
    });
    expect(orchestrator.processes()[0]?.status).toBe("idle");
  });

  it("hands children the validated bundle as a snapshot file, a new one after a reload", async () => {
    const { orchestrator, spawner } = setup();
    orchestrator.submit({ input: "hello" });
    const first = spawner.latest("a").request.env?.GOONDAN_BUNDLE_SNAPSHOT;
    expect(first).toBeString();
    expect(JSON.parse(readFileSync(first as string, "utf8"))).toEqual(
      JSON.parse(JSON.stringify(orchestrator.currentBundle)),
    );
    spawner.latest("a").ready();
    spawner.latest("a").reply();
    const changed = testBundle({ agents: ["a", "b", "c"], policy: { maxStepsPerTurn: 7 } });
    await orchestrator.reload({ bundle: changed, agents: [] });
    orchestrator.submit({ input: "again", agent: "b" });
    const second = spawner.latest("b").request.env?.GOONDAN_BUNDLE_SNAPSHOT;
    expect(second).not.toBe(first);
    expect(JSON.parse(readFileSync(second as string, "utf8"))).toEqual(JSON.parse(JSON.stringify(changed)));
  });

  it("delivers one event at a time, in acceptance order", () => {
    const { orchestrator, spawner } = setup();
    orchestrator.submit({ input: "one" });
    orchestrator.submit({ input: "two" });
    const child = spawner.latest("a");
    child.ready();
    expect(child.events().map((delivered) => delivered.event.input)).toEqual(["one"]);
    child.reply();
    expect(child.events().map((delivered) => delivered.event.input)).toEqual(["one", "two"]);
  });

  it("refuses an agent outside the swarm with E_AGENT_NOT_FOUND", () => {
    const { orchestrator } = setup();
    expect(() => orchestrator.submit({ input: "x", agent: "zed" })).toThrow(
      expect.objectContaining({ code: "E_AGENT_NOT_FOUND" }),
    );
  });

  it("restarts a crashed agent at once and redelivers its event with the next attempt", async () => {
    const { orchestrator, spawner } = setup();
    const submitted = orchestrator.submit({ input: "work" });
    const first = spawner.latest("a");
    first.ready();
    first.crash();
    const second = spawner.latest("a");
    expect(second).not.toBe(first);
    expect(orchestrator.processes()[0]).toMatchObject({ status: "spawning", restarts: 1, consecutiveCrashes: 1 });
    second.ready();
    expect(second.events()).toEqual([
      {
        event: expect.objectContaining({ id: submitted.eventId }),
        attempt: 2,
        redelivery: true,
        crashedBefore: "it exited with code 1",
      },
    ]);
    second.reply({ response: "done" });
    expect(await submitted.outcome).toMatchObject({ status: "ok", response: "done" });
    expect(orchestrator.processes()[0]).toMatchObject({ consecutiveCrashes: 0, restarts: 1 });
  });

  it("gives a poison event up with E_AGENT_CRASHED after maxConsecutiveCrashes attempts", async () => {
    const { orchestrator, spawner } = setup({ policy: { restart: { maxConsecutiveCrashes: 2 } } });
    const submitted = orchestrator.submit({ input: "poison" });
    spawner.latest("a").ready();
    spawner.latest("a").crash();
    spawner.latest("a").ready();
    expect(spawner.latest("a").events()[0]?.attempt).toBe(2);
    spawner.latest("a").crash();
    expect(await submitted.outcome).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
    expect((await orchestrator.store.unanswered("test-swarm")).filter((record) => record.event.agent === "a")).toEqual(
      [],
    );
  });

  it("backs off in crashLoopBackOff past maxConsecutiveCrashes and recovers when the child starts again", async () => {
    const { orchestrator, spawner, clock } = setup({
      policy: { restart: { maxConsecutiveCrashes: 2, initialBackoffMs: 100, maxBackoffMs: 1000 } },
    });
    const first = orchestrator.submit({ input: "never started" });
    spawner.latest("a").crash(); // failed start 1: restart now
    expect(spawner.of("a")).toHaveLength(2);
    spawner.latest("a").crash(); // failed start 2: the waiting event is given up, backoff 100
    expect(await first.outcome).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
    expect(orchestrator.processes()[0]).toMatchObject({ status: "crashLoopBackOff", pid: null, consecutiveCrashes: 2 });
    clock.advance(99);
    expect(spawner.of("a")).toHaveLength(2);
    clock.advance(1);
    expect(spawner.of("a")).toHaveLength(3);
    spawner.latest("a").crash(); // still failing: backoff again
    clock.advance(99);
    expect(spawner.of("a")).toHaveLength(3);
    clock.advance(101);
    const healthy = spawner.latest("a");
    expect(spawner.of("a")).toHaveLength(4);
    healthy.ready();
    const second = orchestrator.submit({ input: "after the fix" });
    healthy.reply({ response: "recovered" });
    expect(await second.outcome).toMatchObject({ status: "ok", response: "recovered" });
    expect(orchestrator.processes()[0]).toMatchObject({ status: "idle", consecutiveCrashes: 0, restarts: 3 });
  });

  it("kills a child that never becomes ready and counts it as a crash", () => {
    const spawner = new FakeSpawner();
    const clock = new ManualClock();
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-orch-"));
    roots.push(stateRoot);
    const orchestrator = new Orchestrator({
      bundle: testBundle({ agents: ["a"] }),
      stateRoot,
      spawner,
      clock,
      readyTimeoutMs: 500,
    });
    orchestrator.submit({ input: "x" });
    clock.advance(500);
    expect(spawner.of("a")[0]?.kills).toEqual(["SIGKILL"]);
    expect(spawner.of("a")).toHaveLength(2);
  });

  it("treats a spawn that throws as a failed start and backs off like one", async () => {
    const { orchestrator, spawner, clock } = setup({
      policy: { restart: { maxConsecutiveCrashes: 1, initialBackoffMs: 100, maxBackoffMs: 100 } },
    });
    let failures = 2;
    const spawn = spawner.spawn.bind(spawner);
    spawner.spawn = (request) => {
      if (failures-- > 0) throw new Error("ENOMEM");
      return spawn(request);
    };
    const submitted = orchestrator.submit({ input: "x" });
    const outcome = await submitted.outcome;
    expect(outcome).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
    expect(outcome.error?.message).toContain("ENOMEM");
    clock.advance(100);
    await Bun.sleep(0);
    expect(orchestrator.processes()[0]).toMatchObject({ status: "crashLoopBackOff", consecutiveCrashes: 2, pid: null });
    clock.advance(100);
    spawner.latest("a").ready();
    const next = orchestrator.submit({ input: "y" });
    spawner.latest("a").reply({ response: "spawned at last" });
    expect((await next.outcome).response).toBe("spawned at last");
  });

  it("ingest marks connector events with their connection", () => {
    const { orchestrator, spawner } = setup();
    orchestrator.ingest({ connection: "inbound", input: "from outside" });
    spawner.latest("a").ready();
    expect(spawner.latest("a").lastEvent()).toMatchObject({
      type: "connector.event",
      source: { kind: "connector", name: "inbound" },
    });
  });

  it("stops an instance idle longer than idleSeconds and respawns it on its next event", async () => {
    const { orchestrator, spawner, clock } = setup({
      policy: { lifecycle: { idleSeconds: 10 }, shutdown: { gracePeriodSeconds: 1 } },
    });
    orchestrator.submit({ input: "first" });
    const child = spawner.latest("a");
    child.ready();
    child.reply();
    clock.advance(9_999);
    expect(child.sent.some((message) => message.type === "shutdown")).toBe(false);
    clock.advance(1);
    expect(child.sent.at(-1)).toMatchObject({ type: "shutdown", payload: { reason: "idle", gracePeriodMs: 1000 } });
    expect(orchestrator.processes()[0]?.status).toBe("draining");
    child.exit();
    expect(orchestrator.processes()).toEqual([]);
    const next = orchestrator.submit({ input: "second" });
    const respawned = spawner.latest("a");
    expect(respawned).not.toBe(child);
    respawned.ready();
    respawned.reply();
    expect((await next.outcome).status).toBe("ok");
  });

  it("kills a draining child with SIGKILL after the grace period", () => {
    const { orchestrator, spawner, clock } = setup({
      policy: { lifecycle: { idleSeconds: 1 }, shutdown: { gracePeriodSeconds: 2 } },
    });
    orchestrator.submit({ input: "x" });
    const child = spawner.latest("a");
    child.ready();
    child.reply();
    clock.advance(1000);
    clock.advance(1999);
    expect(child.kills).toEqual([]);
    clock.advance(1);
    expect(child.kills).toEqual(["SIGKILL"]);
    expect(orchestrator.processes()).toEqual([]);
  });
});

describe("Orchestrator process slots (maxInstances)", () => {
  it("stops the least recently used idle instance to make room", () => {
    const { orchestrator, spawner, clock } = setup({ policy: { lifecycle: { maxInstances: 2 } } });
    orchestrator.submit({ input: "1", instanceKey: "k1" });
    spawner.latest("a", "k1").ready();
    clock.advance(10);
    orchestrator.submit({ input: "2", instanceKey: "k2" });
    spawner.latest("a", "k2").ready();
    clock.advance(10);
    spawner.latest("a", "k2").reply();
    clock.advance(10);
    spawner.latest("a", "k1").reply(); // k1 is now the most recently active
    orchestrator.submit({ input: "3", instanceKey: "k3" });
    expect(spawner.of("a", "k3")).toHaveLength(0);
    expect(spawner.latest("a", "k2").sent.at(-1)).toMatchObject({ type: "shutdown", payload: { reason: "evicted" } });
    expect(spawner.latest("a", "k1").sent.some((message) => message.type === "shutdown")).toBe(false);
    spawner.latest("a", "k2").exit();
    expect(spawner.of("a", "k3")).toHaveLength(1);
  });

  it("lets the event wait while no instance is idle, then evicts one that turns idle", async () => {
    const { orchestrator, spawner } = setup({ policy: { lifecycle: { maxInstances: 1 } } });
    orchestrator.submit({ input: "busy", instanceKey: "k1" });
    const busy = spawner.latest("a", "k1");
    busy.ready();
    const waiting = orchestrator.submit({ input: "later", instanceKey: "k2" });
    expect(spawner.of("a", "k2")).toHaveLength(0);
    expect(orchestrator.processes().map((row) => `${row.instanceKey} ${row.status}`)).toEqual(["k1 processing"]);
    expect((await orchestrator.instances()).find((row) => row.instanceKey === "k2")).toMatchObject({
      agent: "a",
      instanceKey: "k2",
      status: "terminated",
      queued: 1,
      waitingForSlot: true,
    });
    busy.reply();
    expect(busy.sent.at(-1)).toMatchObject({ type: "shutdown", payload: { reason: "evicted" } });
    busy.exit();
    const next = spawner.latest("a", "k2");
    next.ready();
    next.reply({ response: "finally" });
    expect((await waiting.outcome).response).toBe("finally");
  });
});

describe("Orchestrator spawn bursts (maxConcurrentSpawns)", () => {
  it("starts at most maxConcurrentSpawns processes of their own at once and the next when one is ready", () => {
    const spawner = new FakeSpawner();
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-orch-"));
    roots.push(stateRoot);
    const orchestrator = new Orchestrator({
      bundle: testBundle({
        agents: ["a"],
        process: { isolation: "instance", maxProcesses: 64, maxInstancesPerProcess: 1 },
      }),
      stateRoot,
      spawner,
      clock: new ManualClock(),
      maxConcurrentSpawns: 2,
    });
    for (const key of ["k1", "k2", "k3"]) orchestrator.submit({ input: "x", instanceKey: key });
    expect(spawner.children.map((child) => child.address)).toEqual(["a/k1", "a/k2"]);
    spawner.latest("a", "k2").ready();
    expect(spawner.children.map((child) => child.address)).toEqual(["a/k1", "a/k2", "a/k3"]);
  });
});

describe("Orchestrator shutdown", () => {
  it("asks every child to shut down, stops accepting, and resolves once they exited", async () => {
    const { orchestrator, spawner, clock } = setup({ policy: { shutdown: { gracePeriodSeconds: 5 } } });
    orchestrator.submit({ input: "x" });
    orchestrator.submit({ input: "y", agent: "b" });
    spawner.latest("a").ready();
    spawner.latest("b").ready();
    spawner.latest("b").reply();
    const stopped = orchestrator.shutdown({ reason: "SIGTERM" });
    expect(() => orchestrator.submit({ input: "z" })).toThrow(
      expect.objectContaining({ code: "E_ORCHESTRATOR_STOPPING" }),
    );
    for (const child of spawner.live())
      expect(child.sent.at(-1)).toMatchObject({
        type: "shutdown",
        payload: { reason: "SIGTERM", gracePeriodMs: 5000 },
      });
    spawner.latest("b").exit();
    clock.advance(5000);
    expect(spawner.latest("a").kills).toEqual(["SIGKILL"]);
    await stopped;
    expect(spawner.live()).toEqual([]);
    expect(spawner.violations).toEqual([]);
    await tick();
  });
});
