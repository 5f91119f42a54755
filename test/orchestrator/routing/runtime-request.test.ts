import { afterEach, describe, expect, it } from "bun:test";
import { busyCaller, call, delegateResults, removeRoots, setup, tick } from "./routing-harness.ts";

afterEach(removeRoots);

describe("runtime request", () => {
  it("routes the callee's answer back to exactly the requesting instance as a delegate_result", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    const other = s.orchestrator.submit({ input: "other", instanceKey: "other" });
    s.spawner.latest("a", "other").ready();
    const accepted = await call(
      a,
      "request",
      { target: "b", input: "question" },
      { traceId: "trace-1", parentSpanId: "span-tool" },
    );
    expect(accepted).toMatchObject({
      ok: true,
      value: { correlationId: expect.any(String), eventId: expect.any(String) },
    });
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
    await tick(); // the answer is routed once the callee's turn is committed
    const request = b.lastEvent();
    const correlationId = (accepted.value as { correlationId: string }).correlationId;
    expect(delegateResults(a)).toEqual([
      {
        correlationId,
        status: "ok",
        agent: "b",
        instanceKey: "test-swarm",
        eventId: request.id,
        turnId: `turn_${request.id}`,
        response: "answer",
        finishReason: "stop",
      },
    ]);
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

  it("refuses a target outside the swarm with E_AGENT_NOT_FOUND", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    expect(await call(a, "request", { target: "nobody", input: "q" })).toMatchObject({
      ok: false,
      error: { code: "E_AGENT_NOT_FOUND" },
    });
  });

  it("refuses a cycle with E_CIRCULAR_CALL_DETECTED, using the chain of the requesting turn", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    await call(a, "request", { target: "b", input: "q" });
    const b = s.spawner.latest("b");
    b.ready();
    expect(await call(b, "request", { target: "a", input: "back" })).toMatchObject({
      ok: false,
      error: { code: "E_CIRCULAR_CALL_DETECTED" },
    });
    await call(b, "request", { target: "c", input: "on" });
    const c = s.spawner.latest("c");
    c.ready();
    expect(c.lastEvent().callChain).toEqual(["a", "b"]);
    expect(await call(c, "request", { target: "a", input: "loop" })).toMatchObject({
      ok: false,
      error: { code: "E_CIRCULAR_CALL_DETECTED" },
    });
  });

  it("refuses a call past maxDelegationDepth with E_DELEGATION_DEPTH_EXCEEDED", async () => {
    const s = setup({ policy: { maxDelegationDepth: 1 } });
    const { a } = busyCaller(s);
    await call(a, "request", { target: "b", input: "q" });
    const b = s.spawner.latest("b");
    b.ready();
    expect(await call(b, "request", { target: "c", input: "too deep" })).toMatchObject({
      ok: false,
      error: { code: "E_DELEGATION_DEPTH_EXCEEDED" },
    });
  });

  it("answers E_AGENT_REQUEST_TIMEOUT at the deadline, never starts the expired event, and drops a late reply", async () => {
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
    expect(delegateResults(a)).toEqual([
      expect.objectContaining({
        correlationId: (started.value as { correlationId: string }).correlationId,
        status: "error",
        error: expect.objectContaining({ code: "E_AGENT_REQUEST_TIMEOUT" }),
      }),
    ]);
    s.clock.advance(500);
    expect(delegateResults(a)[1]).toMatchObject({
      correlationId: (timedOut.value as { correlationId: string }).correlationId,
      error: { code: "E_AGENT_REQUEST_TIMEOUT" },
    });
    b.reply();
    expect(b.events().map((delivered) => delivered.event.input)).toEqual(["long job"]);
    c.reply({ response: "too late" });
    expect(delegateResults(a)).toHaveLength(2);
  });

  it("turns a callee turn error into E_AGENT_TURN_FAILED", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    await call(a, "request", { target: "b", input: "q" });
    const b = s.spawner.latest("b");
    b.ready();
    b.reply({ status: "error", error: { code: "MODEL_ERROR", message: "boom" } });
    await tick();
    expect(delegateResults(a)[0]).toMatchObject({ status: "error", error: { code: "E_AGENT_TURN_FAILED" } });
  });

  it("answers E_AGENT_CRASHED when the callee's event is given up", async () => {
    const s = setup({ policy: { restart: { maxConsecutiveCrashes: 1 } } });
    const { a } = busyCaller(s);
    await call(a, "request", { target: "b", input: "poison" });
    s.spawner.latest("b").ready();
    s.spawner.latest("b").crash();
    await tick();
    expect(delegateResults(a)[0]).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
  });

  it("keeps a blocking reply for a requester whose child is gone: its redelivered turn runs the call again and reattaches", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    const first = await call(a, "request", { target: "b", input: "q", correlationId: "call-key-1" });
    a.crash();
    const b = s.spawner.latest("b");
    b.ready();
    b.reply({ response: "kept" });
    await tick();
    const restarted = s.spawner.latest("a");
    expect(restarted).not.toBe(a);
    restarted.ready();
    expect(restarted.events()[0]).toMatchObject({ attempt: 2, redelivery: true });
    expect(delegateResults(restarted)).toEqual([]);
    // The same tool call, run again, names the same correlationId: the same event, already answered.
    expect((await call(restarted, "request", { target: "b", input: "q", correlationId: "call-key-1" })).value).toEqual(
      first.value,
    );
    await tick();
    expect(delegateResults(restarted)).toEqual([
      expect.objectContaining({ correlationId: "call-key-1", status: "ok", response: "kept" }),
    ]);
    expect(b.events()).toHaveLength(1);
  });

  it("a restarted orchestrator still routes a pending request's reply to its requester's reattached call", async () => {
    const first = setup();
    const { a } = busyCaller(first);
    await call(a, "request", { target: "b", input: "q", correlationId: "call-key-2" });
    await tick();
    const second = setup({ stateRoot: first.stateRoot });
    expect((await second.orchestrator.start()).resumed).toBe(2);
    const newA = second.spawner.latest("a");
    const newB = second.spawner.latest("b");
    newB.ready();
    newB.reply({ response: "survived" });
    await tick();
    newA.ready();
    await call(newA, "request", { target: "b", input: "q", correlationId: "call-key-2" });
    await tick();
    expect(delegateResults(newA)).toEqual([
      expect.objectContaining({ correlationId: "call-key-2", response: "survived" }),
    ]);
    expect(newB.events()).toHaveLength(1);
  });
});
