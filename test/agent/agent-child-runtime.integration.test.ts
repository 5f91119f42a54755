import { describe, expect, it } from "bun:test";
import { toolResults } from "../helpers/loopback-llm.ts";
import { agentEvent, startChildOnLoopback } from "./support/child-harness.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { RESULTS_ARRIVED_EVENT } from "../../src/protocol/agent-event.ts";
import { reply } from "../helpers/outcomes.ts";

const defer = useCleanups();

describe("ctx.runtime over IPC", () => {
  it("blocks a request until the delegate_result with its correlationId arrives", async () => {
    const { server, child } = await startChildOnLoopback({
      defer,
      llm: {
        replies: [
          { toolCalls: [{ id: "call_ask", name: "delegate__ask", args: { target: "worker", input: "count files" } }] },
          { text: "worker says 3" },
        ],
      },
    });
    await child.waitFor("ready");
    const event = agentEvent("ask the worker", { callChain: ["user-agent"] });
    child.send("event", { event, attempt: 1 });
    const call = await child.waitFor("runtime_call");
    expect(call.payload).toMatchObject({
      method: "request",
      args: { target: "worker", input: "count files", async: false },
      callChain: ["user-agent"],
      traceId: event.traceId,
    });
    expect(call.payload.parentSpanId).toMatch(/^[0-9a-f]{16}$/);
    const correlationId = call.payload.args.correlationId as string;
    child.send("runtime_result", { callId: call.payload.callId, ok: true, value: { correlationId, eventId: "evt_w" } });
    child.send("delegate_result", reply({ correlationId, agent: "worker", instanceKey: "main", response: "3 files" }));
    const result = await child.waitFor("turn_result");
    expect(result.payload.response).toBe("worker says 3");
    expect(toolResults(server.requests[1]!)[0]?.content).toMatchObject({
      status: "ok",
      output: { status: "ok", response: "3 files", correlationId },
    });
  });

  it("gives a request the Swarm's policy.requestTimeoutMs when the model names no timeout", async () => {
    const { child } = await startChildOnLoopback({
      defer,
      llm: {
        replies: [
          { toolCalls: [{ name: "delegate__ask", args: { target: "worker", input: "count files" } }] },
          { text: "done" },
        ],
      },
      bundle: {
        replace: { from: "policy: { maxStepsPerTurn: 4,", to: "policy: { maxStepsPerTurn: 4, requestTimeoutMs: 4321," },
      },
    });
    await child.waitFor("ready");
    child.send("event", { event: agentEvent("ask the worker"), attempt: 1 });
    const call = await child.waitFor("runtime_call");
    expect(call.payload).toMatchObject({ method: "request", args: { target: "worker", timeoutMs: 4321 } });
    const correlationId = call.payload.args.correlationId as string;
    child.send("runtime_result", { callId: call.payload.callId, ok: true, value: { correlationId } });
    child.send("delegate_result", reply({ correlationId, agent: "worker", instanceKey: "main", response: "3 files" }));
    expect((await child.waitFor("turn_result")).payload.response).toBe("done");
  });

  it("turns a refused runtime call into a tool error the model reads", async () => {
    const { server, child } = await startChildOnLoopback({
      defer,
      llm: {
        replies: [
          { toolCalls: [{ name: "delegate__ask", args: { target: "assistant", input: "loop" } }] },
          { text: "cannot" },
        ],
      },
    });
    await child.waitFor("ready");
    child.send("event", { event: agentEvent("ask myself"), attempt: 1 });
    const call = await child.waitFor("runtime_call");
    child.send("runtime_result", {
      callId: call.payload.callId,
      ok: false,
      error: { code: "E_CIRCULAR_CALL_DETECTED", message: "cycle" },
    });
    await child.waitFor("turn_result");
    expect(toolResults(server.requests[1]!)[0]?.content).toMatchObject({ status: "error" });
  });

  /** A child whose first turn makes an async request to `worker` and ends with "started it"; `later` is the model's next reply. */
  async function childAfterAsyncRequest(later: string) {
    const { server: llm, child } = await startChildOnLoopback({
      defer,
      llm: {
        replies: [
          { toolCalls: [{ name: "delegate__ask_later", args: { target: "worker", input: "slow job" } }] },
          { text: "started it" },
          { text: later },
        ],
      },
    });
    await child.waitFor("ready");
    child.send("event", { event: agentEvent("start the job"), attempt: 1 });
    const call = await child.waitFor("runtime_call");
    const correlationId = call.payload.args.correlationId as string;
    child.send("runtime_result", { callId: call.payload.callId, ok: true, value: { correlationId } });
    const first = await child.waitFor("turn_result");
    expect(first.payload.response).toBe("started it");
    expect(toolResults(llm.requests[1]!)[0]?.content).toMatchObject({ status: "pending", handle: correlationId });
    return { child, correlationId, llm };
  }

  it("shows an async request's reply to the model before its next step", async () => {
    const { child, correlationId, llm: server } = await childAfterAsyncRequest("the job said done");
    child.send("delegate_result", {
      ...reply({ correlationId, agent: "worker", instanceKey: "main", response: "job done" }),
      async: true,
    });
    child.send("event", { event: agentEvent("any news?"), attempt: 1 });
    await child.waitFor("turn_result", (message) => message.payload.response === "the job said done");
    const shown = JSON.stringify(server.requests[2]!.body.messages);
    expect(shown).toContain("job done");
    expect(shown).toContain(correlationId);
  });

  it("asks for a turn when an async reply arrives while it is idle, and shows it in the results.arrived turn", async () => {
    const { child, correlationId, llm: server } = await childAfterAsyncRequest("the worker reports: job done");
    child.send("delegate_result", {
      ...reply({ correlationId, agent: "worker", instanceKey: "main", response: "job done" }),
      async: true,
    });
    const asked = await child.waitFor("results_waiting");
    expect(asked.payload).toEqual({ count: 1 });
    const wake = {
      ...agentEvent(""),
      type: RESULTS_ARRIVED_EVENT,
      source: { kind: "system" as const, name: "results-arrived" },
    };
    child.send("event", { event: wake, attempt: 1 });
    const woke = await child.waitFor("turn_result", (message) => message.payload.eventId === wake.id);
    expect(woke.payload).toMatchObject({ status: "ok", response: "the worker reports: job done" });
    const messages = server.requests[2]!.body.messages;
    expect(messages.at(-1)).toMatchObject({
      role: "user",
      content: expect.stringContaining(`request ${correlationId}, status ok]\njob done`),
    });
    expect(messages.filter((message) => message.role === "user")).toHaveLength(2);
  });

  it("drops a reply to a blocking call that is not waiting: the redelivered turn's reattached call gets it from the store", async () => {
    const { child, llm: server } = await childAfterAsyncRequest("unused");
    child.send(
      "delegate_result",
      reply({
        correlationId: "corr_of_a_call_run_again_later",
        agent: "worker",
        instanceKey: "main",
        response: "job done",
      }),
    );
    child.send("event", { event: agentEvent("any news?"), attempt: 1 });
    await child.waitFor("turn_result", (message) => message.payload.response === "unused");
    expect(child.messages.some((message) => message.type === "results_waiting")).toBe(false);
    expect(JSON.stringify(server.requests[2]!.body.messages)).not.toContain("job done");
  });
});
