/**
 * Results that reach an idle instance (an async request's reply, a pending tool's completion) wake it: the
 * child says `results_waiting`, the orchestrator queues a `results.arrived` event unless the instance has
 * work already, and a reply for an instance without a child starts one.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { RESULTS_ARRIVED_EVENT } from "../../src/protocol/agent-event.ts";
import { pendingResultId } from "../../src/protocol/conversation.ts";
import { busyCaller, call, removeRoots, setup, tick } from "./routing/routing-harness.ts";

afterEach(removeRoots);

describe("waking an instance for arrived results", () => {
  it("queues a results.arrived event, from the system and answering nobody, for an idle child that asks", async () => {
    const s = setup();
    const { a, submitted } = busyCaller(s);
    a.reply({ response: "asked b, will report" });
    await submitted.outcome;
    a.emit("results_waiting", { count: 1 });
    const wake = a.lastEvent();
    expect(wake).toMatchObject({
      type: RESULTS_ARRIVED_EVENT,
      agent: "a",
      instanceKey: "test-swarm",
      input: "",
      source: { kind: "system" },
      callChain: [],
    });
    expect(wake.replyTo).toBeUndefined();
    expect(s.orchestrator.processes()[0]?.status).toBe("processing");
    a.reply({ event: wake, response: "b is done" });
    expect(s.orchestrator.processes()[0]?.status).toBe("idle");
    expect((await s.orchestrator.instances())[0]).toMatchObject({ agent: "a", queued: 0 });
  });

  it("ignores the ask while the instance has an event in flight or queued: that turn shows the results", () => {
    const s = setup();
    const { a } = busyCaller(s);
    s.orchestrator.submit({ input: "next" });
    a.emit("results_waiting", { count: 2 });
    a.reply();
    a.reply();
    expect(a.events().map(({ event }) => event.input)).toEqual(["go", "next"]);
    expect(a.events().some(({ event }) => event.type === RESULTS_ARRIVED_EVENT)).toBe(false);
  });

  it("starts a requester that has no child for an async reply, and hands it the reply with its stored state", async () => {
    const s = setup({ policy: { lifecycle: { idleSeconds: 10 }, shutdown: { gracePeriodSeconds: 1 } } });
    const { a, submitted } = busyCaller(s);
    await call(a, "request", { target: "b", input: "long job", async: true });
    a.reply({ response: "asked b" });
    await submitted.outcome;
    s.clock.advance(10_000); // a is reaped for idleness before b answers
    a.exit();
    expect(s.spawner.of("a")).toHaveLength(1);
    const b = s.spawner.latest("b");
    b.ready();
    b.reply({ response: "job done" });
    await tick();
    const woken = s.spawner.latest("a");
    expect(woken).not.toBe(a);
    expect(woken.hydrated().pendingResults).toEqual([
      expect.objectContaining({ status: "ok", agent: "b", response: "job done" }),
    ]);
    woken.ready();
  });

  it("keeps a reply for a requester without a child across an orchestrator restart until its model has seen it", async () => {
    const s = setup({ policy: { lifecycle: { idleSeconds: 10 }, shutdown: { gracePeriodSeconds: 1 } } });
    const { a, submitted } = busyCaller(s);
    await call(a, "request", { target: "b", input: "long job", async: true });
    a.reply({ response: "asked b" });
    await submitted.outcome;
    s.clock.advance(10_000);
    a.exit();
    const b = s.spawner.latest("b");
    b.ready();
    b.reply({ response: "job done" });
    await tick();
    // The orchestrator dies before the woken requester is ready: the next one on the same state root has the reply.
    expect(s.spawner.latest("a")).not.toBe(a);
    const next = setup({ stateRoot: s.stateRoot });
    expect(await next.orchestrator.start()).toEqual({ resumed: 0 });
    const woken = next.spawner.latest("a");
    const [held] = woken.hydrated().pendingResults;
    expect(held).toMatchObject({ status: "ok", agent: "b", response: "job done" });
    woken.ready();
    // The child shows it to its model and commits that: a third orchestrator finds nothing to hand over again.
    woken.emit("commit", { seq: 1, consumed: [pendingResultId(held!)] });
    await tick();
    expect(woken.sent.some((message) => message.type === "committed")).toBe(true);
    const third = setup({ stateRoot: s.stateRoot });
    await third.orchestrator.start();
    expect(third.spawner.of("a")).toEqual([]);
  });

  it("does not queue a wake-up once the orchestrator is shutting down", async () => {
    const s = setup();
    const { a, submitted } = busyCaller(s);
    a.reply();
    await submitted.outcome;
    const stopping = s.orchestrator.shutdown({ reason: "test", gracePeriodMs: 10 });
    a.emit("results_waiting", { count: 1 });
    expect(a.events()).toHaveLength(1);
    a.exit();
    await stopping;
  });
});
