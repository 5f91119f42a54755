import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import { writeSwarmBundle } from "../fixtures/orchestrator/real-swarm.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Orchestrator, type RestartHandler } from "../../src/orchestrator/orchestrator.ts";
import type { ChildToParent, ParentMessage } from "../../src/ipc/protocol.ts";
import { FakeSpawner, type FakeChild } from "../helpers/fake-spawner.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { testBundle, type TestBundleOptions } from "../fixtures/orchestrator/test-bundle.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function setup(options: Partial<TestBundleOptions> & { restartHandler?: RestartHandler; stateRoot?: string } = {}) {
  const stateRoot = options.stateRoot ?? mkdtempSync(join(tmpdir(), "goondan-route-"));
  if (!options.stateRoot) roots.push(stateRoot);
  const spawner = new FakeSpawner();
  const clock = new ManualClock();
  const orchestrator = new Orchestrator({
    bundle: testBundle({ agents: ["a", "b", "c"], ...options }),
    stateRoot,
    spawner,
    clock,
    ...(options.restartHandler ? { restartHandler: options.restartHandler } : {}),
  });
  return { orchestrator, spawner, clock, stateRoot };
}

const tick = async () => {
  for (let i = 0; i < 5; i++) await Bun.sleep(0);
};

let callSeq = 0;
/** The child makes a runtime call; returns its runtime_result once the orchestrator answered. */
async function call(child: FakeChild, method: ChildToParent["runtime_call"]["method"], args: Record<string, unknown>, extra: Partial<ChildToParent["runtime_call"]> = {}) {
  const callId = `call_${++callSeq}`;
  child.emit("runtime_call", { callId, method, args: args as never, callChain: [], ...extra });
  await tick();
  const find = () => child.sent.find((message): message is Extract<ParentMessage, { type: "runtime_result" }> => message.type === "runtime_result" && message.payload.callId === callId);
  // Calls that read the disk (restart validates the bundle) answer after real I/O.
  for (let waited = 0; !find() && waited < 5000; waited += 5) await Bun.sleep(5);
  const result = find();
  if (!result) throw new Error(`no runtime_result for ${method}`);
  return result.payload;
}

const delegateResults = (child: FakeChild) => child.sent.flatMap((message) => (message.type === "delegate_result" ? [message.payload] : []));

/** Starts instance a/test-swarm in the middle of a turn. */
function busyCaller(setupResult: ReturnType<typeof setup>, input = "go") {
  const submitted = setupResult.orchestrator.submit({ input, traceId: "trace-1" });
  const a = setupResult.spawner.latest("a");
  a.ready();
  return { a, submitted };
}

describe("runtime request", () => {
  it("routes the callee's answer back to exactly the requesting instance as a delegate_result", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    const other = s.orchestrator.submit({ input: "other", instanceKey: "other" });
    s.spawner.latest("a", "other").ready();
    const accepted = await call(a, "request", { target: "b", input: "question" }, { traceId: "trace-1", parentSpanId: "span-tool" });
    expect(accepted).toMatchObject({ ok: true, value: { correlationId: expect.any(String), eventId: expect.any(String) } });
    const b = s.spawner.latest("b");
    b.ready();
    expect(b.lastEvent()).toMatchObject({
      type: "agent.request",
      input: "question",
      source: { kind: "agent", name: "a", instanceKey: "test-swarm" },
      replyTo: { target: "a/test-swarm" },
      traceId: "trace-1",
      parentSpanId: "span-tool",
      callChain: ["a"],
    });
    b.reply({ response: "answer" });
    expect(delegateResults(a)).toEqual([{ correlationId: (accepted.value as { correlationId: string }).correlationId, status: "ok", agent: "b", instanceKey: "test-swarm", response: "answer", finishReason: "stop" }]);
    expect(delegateResults(s.spawner.latest("a", "other"))).toEqual([]);
    expect(other.eventId).toBeTruthy();
  });

  it("carries the caller's trace id when the call does not name one", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    await call(a, "request", { target: "b", input: "q" });
    s.spawner.latest("b").ready();
    expect(s.spawner.latest("b").lastEvent().traceId).toBe("trace-1");
  });

  it("refuses a target outside the swarm with AGENT_NOT_FOUND", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    expect(await call(a, "request", { target: "nobody", input: "q" })).toMatchObject({ ok: false, error: { code: "AGENT_NOT_FOUND" } });
  });

  it("refuses a cycle with CIRCULAR_CALL_DETECTED, using the chain of the requesting turn", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    await call(a, "request", { target: "b", input: "q" });
    const b = s.spawner.latest("b");
    b.ready();
    expect(await call(b, "request", { target: "a", input: "back" })).toMatchObject({ ok: false, error: { code: "CIRCULAR_CALL_DETECTED" } });
    await call(b, "request", { target: "c", input: "on" });
    const c = s.spawner.latest("c");
    c.ready();
    expect(c.lastEvent().callChain).toEqual(["a", "b"]);
    expect(await call(c, "request", { target: "a", input: "loop" })).toMatchObject({ ok: false, error: { code: "CIRCULAR_CALL_DETECTED" } });
  });

  it("refuses a call past maxDelegationDepth with DELEGATION_DEPTH_EXCEEDED", async () => {
    const s = setup({ policy: { maxDelegationDepth: 1 } });
    const { a } = busyCaller(s);
    await call(a, "request", { target: "b", input: "q" });
    const b = s.spawner.latest("b");
    b.ready();
    expect(await call(b, "request", { target: "c", input: "too deep" })).toMatchObject({ ok: false, error: { code: "DELEGATION_DEPTH_EXCEEDED" } });
  });

  it("answers AGENT_REQUEST_TIMEOUT at the deadline, never starts the expired event, and drops a late reply", async () => {
    const s = setup({ policy: { requestTimeoutMs: 1000 } });
    const { a } = busyCaller(s);
    // b is busy with its own event, so the request waits in b's inbox.
    s.orchestrator.submit({ input: "long job", agent: "b" });
    const b = s.spawner.latest("b");
    b.ready();
    const timedOut = await call(a, "request", { target: "b", input: "quick?" });
    const started = await call(a, "request", { target: "c", input: "slow", timeoutMs: 500 });
    const c = s.spawner.latest("c");
    c.ready();
    s.clock.advance(499);
    expect(delegateResults(a)).toEqual([]);
    s.clock.advance(1);
    expect(delegateResults(a)).toEqual([expect.objectContaining({ correlationId: (started.value as { correlationId: string }).correlationId, status: "error", error: expect.objectContaining({ code: "AGENT_REQUEST_TIMEOUT" }) })]);
    s.clock.advance(500);
    expect(delegateResults(a)[1]).toMatchObject({ correlationId: (timedOut.value as { correlationId: string }).correlationId, error: { code: "AGENT_REQUEST_TIMEOUT" } });
    b.reply();
    expect(b.events().map((delivered) => delivered.event.input)).toEqual(["long job"]);
    c.reply({ response: "too late" });
    expect(delegateResults(a)).toHaveLength(2);
  });

  it("turns a callee turn error into AGENT_TURN_FAILED", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    await call(a, "request", { target: "b", input: "q" });
    const b = s.spawner.latest("b");
    b.ready();
    b.reply({ status: "error", error: { code: "MODEL_ERROR", message: "boom" } });
    expect(delegateResults(a)[0]).toMatchObject({ status: "error", error: { code: "AGENT_TURN_FAILED" } });
  });

  it("answers AGENT_CRASHED when the callee's event is given up", async () => {
    const s = setup({ policy: { restart: { maxConsecutiveCrashes: 1 } } });
    const { a } = busyCaller(s);
    await call(a, "request", { target: "b", input: "poison" });
    s.spawner.latest("b").ready();
    s.spawner.latest("b").crash();
    expect(delegateResults(a)[0]).toMatchObject({ status: "error", error: { code: "AGENT_CRASHED" } });
  });

  it("holds a reply for a requester whose child is gone and delivers it when it is ready again", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    await call(a, "request", { target: "b", input: "q" });
    a.crash();
    const b = s.spawner.latest("b");
    b.ready();
    b.reply({ response: "kept" });
    const restarted = s.spawner.latest("a");
    expect(restarted).not.toBe(a);
    expect(delegateResults(restarted)).toEqual([]);
    restarted.ready();
    expect(delegateResults(restarted)).toEqual([expect.objectContaining({ status: "ok", response: "kept" })]);
  });

  it("a restarted orchestrator still routes a pending request's reply to its requester", async () => {
    const first = setup();
    const { a } = busyCaller(first);
    await call(a, "request", { target: "b", input: "q" });
    const second = setup({ stateRoot: first.stateRoot });
    expect(second.orchestrator.start().resumed).toBe(2);
    const newA = second.spawner.latest("a");
    const newB = second.spawner.latest("b");
    newB.ready();
    newB.reply({ response: "survived" });
    newA.ready();
    expect(delegateResults(newA)).toEqual([expect.objectContaining({ response: "survived" })]);
  });
});

describe("runtime send, spawn, list, catalog, restart", () => {
  it("send delivers without a replyTo and never answers", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    expect(await call(a, "send", { target: "b", input: "fyi" })).toMatchObject({ ok: true, value: { eventId: expect.any(String) } });
    const b = s.spawner.latest("b");
    b.ready();
    expect(b.lastEvent().replyTo).toBeUndefined();
    b.reply();
    expect(delegateResults(a)).toEqual([]);
  });

  it("spawn starts an instance without an event; list shows it; catalog lists the swarm", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    expect(await call(a, "spawn", { target: "c", instanceKey: "w1" })).toMatchObject({ ok: true, value: { agent: "c", instanceKey: "w1", status: "spawning" } });
    expect(s.spawner.of("c", "w1")).toHaveLength(1);
    const listed = await call(a, "list", {});
    expect((listed.value as { instances: { agent: string }[] }).instances.map((instance) => instance.agent).sort()).toEqual(["a", "c"]);
    expect(await call(a, "catalog", {})).toMatchObject({
      ok: true,
      value: { agents: [{ name: "a", description: "the a agent", entry: true }, { name: "b", entry: false }, { name: "c", entry: false }] },
    });
  });

  it("restart asks the restart handler, whose afterTurn settles when the calling turn committed", async () => {
    let afterTurn: Promise<unknown> | undefined;
    const s = setup({
      restartHandler: async (request) => {
        afterTurn = request.afterTurn;
        return { accepted: true, issues: [] };
      },
    });
    const { a } = busyCaller(s);
    expect(await call(a, "restart", { reason: "new tool" })).toMatchObject({ ok: true, value: { accepted: true, issues: [] } });
    let committed = false;
    void afterTurn?.then(() => (committed = true));
    await tick();
    expect(committed).toBe(false);
    a.reply();
    await tick();
    expect(committed).toBe(true);
  });

  it("a request while the orchestrator stops is refused with ORCHESTRATOR_STOPPING", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    const stopping = s.orchestrator.shutdown({ reason: "test", gracePeriodMs: 10 });
    expect(await call(a, "request", { target: "b", input: "late" })).toMatchObject({ ok: false, error: { code: "ORCHESTRATOR_STOPPING" } });
    s.clock.advance(10);
    await stopping;
  });

  it("an unknown method is a structured error", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    expect(await call(a, "teleport" as never, {})).toMatchObject({ ok: false, error: { code: "E_RUNTIME_UNKNOWN_METHOD" } });
  });
});

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

describe("runtime restart with the default handler", () => {
  async function realBundleSetup() {
    const dir = writeSwarmBundle({ endpoint: "http://127.0.0.1:9/v1" });
    roots.push(dir);
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-restart-"));
    roots.push(stateRoot);
    const spawner = new FakeSpawner();
    const clock = new ManualClock();
    const orchestrator = new Orchestrator({ bundle: await loadBundleOrThrow(dir), stateRoot, spawner, clock });
    const submitted = orchestrator.submit({ input: "fix yourself" });
    const coordinator = spawner.latest("coordinator");
    coordinator.ready();
    return { dir, orchestrator, spawner, clock, coordinator, submitted };
  }

  it("validates the bundle on disk, answers accepted, and reloads after the calling turn committed", async () => {
    const s = await realBundleSetup();
    expect(await call(s.coordinator, "restart", { reason: "new prompt" })).toMatchObject({ ok: true, value: { accepted: true, issues: [] } });
    s.clock.advance(1000);
    await tick();
    expect(s.coordinator.sent.some((message) => message.type === "shutdown")).toBe(false);
    s.coordinator.reply({ response: "restarting soon" });
    expect((await s.submitted.outcome).response).toBe("restarting soon");
    for (let i = 0; i < 200 && !s.coordinator.sent.some((message) => message.type === "shutdown"); i++) await Bun.sleep(5);
    expect(s.coordinator.sent.at(-1)).toMatchObject({ type: "shutdown", payload: { reason: "reload" } });
  });

  it("answers accepted: false with the validation issues when the bundle on disk is invalid", async () => {
    const s = await realBundleSetup();
    writeFileSync(join(s.dir, "goondan.yaml"), "apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: broken }\nspec: {}\n");
    const answer = await call(s.coordinator, "restart", { reason: "broken" });
    expect(answer).toMatchObject({ ok: true, value: { accepted: false } });
    expect((answer.value as { issues: { code: string }[] }).issues.length).toBeGreaterThan(0);
    expect((answer.value as { issues: { code: string }[] }).issues[0]?.code).toMatch(/^E_CONFIG_/);
  });
});
