import { describe, expect, it } from "bun:test";
import type { AgentReply } from "../../src/tools/types.ts";
import { fakeRuntime } from "../tools/helpers.ts";
import { baseTools, errorOf, okOutput } from "./base-tools.ts";
import { reply as replyOf } from "../helpers/outcomes.ts";

describe("agents__request", () => {
  it("asks the target through ctx.runtime and returns its answer", async () => {
    const reply: AgentReply = replyOf({
      agent: "coder",
      instanceKey: "main",
      correlationId: "c-1",
      response: "done",
      finishReason: "stop",
    });
    const { runtime, calls } = fakeRuntime({ request: () => reply });
    const tools = await baseTools({ context: { runtime } });
    expect(
      okOutput(
        await tools.call("agents__request", {
          target: "coder",
          input: "write it",
          instanceKey: "main",
          timeoutMs: 5000.6,
        }),
      ),
    ).toEqual({
      target: "coder",
      agent: "coder",
      instanceKey: "main",
      eventId: "evt_1",
      correlationId: "c-1",
      accepted: true,
      async: false,
      response: "done",
      finishReason: "stop",
    });
    expect(calls).toEqual([
      {
        method: "request",
        options: { target: "coder", instanceKey: "main", input: "write it", timeoutMs: 5000, async: false },
      },
    ]);
  });

  it("returns a pending handle (the correlationId) with async: true", async () => {
    const { runtime, calls } = fakeRuntime({ request: () => ({ correlationId: "corr-9" }) });
    const tools = await baseTools({ context: { runtime } });
    expect(await tools.call("agents__request", { target: "coder", input: "later", async: true })).toEqual({
      status: "pending",
      handle: "corr-9",
      output: {
        target: "coder",
        correlationId: "corr-9",
        status: "accepted",
        accepted: true,
        async: true,
        response: null,
      },
    });
    expect((calls[0]!.options as { async: boolean }).async).toBe(true);
  });

  it("turns an error reply into a structured error with the runtime's code and a suggestion", async () => {
    const reply: AgentReply = replyOf({
      agent: "coder",
      instanceKey: "main",
      correlationId: "c-2",
      status: "error",
      error: { code: "E_AGENT_REQUEST_TIMEOUT", message: "no reply within 60000 ms" },
    });
    const { runtime } = fakeRuntime({ request: () => reply });
    const tools = await baseTools({ context: { runtime } });
    const error = errorOf(await tools.call("agents__request", { target: "coder", input: "x" }));
    expect(error.code).toBe("E_AGENT_REQUEST_TIMEOUT");
    expect(error.message).toContain("no reply within 60000 ms");
    expect(error.suggestion).toContain("async: true");
  });

  it("turns a circular call into E_CIRCULAR_CALL_DETECTED for the model", async () => {
    const { runtime } = fakeRuntime({
      request: () => ({
        agent: "a",
        instanceKey: "k",
        correlationId: "c",
        status: "error",
        error: { code: "E_CIRCULAR_CALL_DETECTED", message: "a → b → a" },
      }),
    });
    const tools = await baseTools({ context: { runtime } });
    expect(errorOf(await tools.call("agents__request", { target: "a", input: "x" })).code).toBe(
      "E_CIRCULAR_CALL_DETECTED",
    );
  });

  it("turns a runtime failure (IPC down) into an E_TOOL result", async () => {
    const { runtime } = fakeRuntime({
      request: () => {
        throw new Error("orchestrator unreachable");
      },
    });
    const tools = await baseTools({ context: { runtime } });
    expect(errorOf(await tools.call("agents__request", { target: "a", input: "x" }))).toMatchObject({
      code: "E_TOOL",
      message: "orchestrator unreachable",
    });
  });

  it("refuses calls without a target or input", async () => {
    const { runtime, calls } = fakeRuntime({});
    const tools = await baseTools({ context: { runtime } });
    expect(errorOf(await tools.call("agents__request", { input: "x" })).code).toBe("E_TOOL_INVALID_ARGS");
    expect(errorOf(await tools.call("agents__request", { target: "a" })).code).toBe("E_TOOL_INVALID_ARGS");
    expect(calls).toEqual([]);
  });
});

describe("agents send, spawn, list, catalog", () => {
  it("passes each call to ctx.runtime and shapes the answer", async () => {
    const { runtime, calls } = fakeRuntime({
      send: () => ({ eventId: "evt-1" }),
      spawn: () => ({ agent: "coder", instanceKey: "k2", status: "idle", pid: 42 }),
      list: () => ({ instances: [{ agent: "coder", instanceKey: "k2", status: "idle", pid: 42 }] }),
      catalog: () => ({
        agents: [
          { name: "coder", description: "writes code", entry: false },
          { name: "lead", entry: true },
        ],
      }),
    });
    const tools = await baseTools({ context: { runtime, agentName: "lead" } });
    expect(okOutput(await tools.call("agents__send", { target: "coder", input: "fyi" }))).toEqual({
      eventId: "evt-1",
      status: "sent",
    });
    expect(okOutput(await tools.call("agents__spawn", { target: "coder", instanceKey: "k2" }))).toEqual({
      agent: "coder",
      instanceKey: "k2",
      status: "idle",
      pid: 42,
    });
    expect(okOutput(await tools.call("agents__list", {}))).toEqual({
      instances: [{ agent: "coder", instanceKey: "k2", status: "idle", pid: 42 }],
    });
    expect(okOutput(await tools.call("agents__catalog", {}))).toEqual({
      agents: [
        { name: "coder", entry: false, description: "writes code" },
        { name: "lead", entry: true },
      ],
      selfAgent: "lead",
      entryAgent: "lead",
      availableCount: 2,
      callableCount: 1,
      availableAgents: ["coder", "lead"],
      callableAgents: ["coder"],
    });
    expect(calls.map((call) => call.method)).toEqual(["send", "spawn", "list", "catalog"]);
    expect(calls[0]?.options).toEqual({ target: "coder", input: "fyi" });
  });

  it("refuses extra arguments to list and catalog", async () => {
    const { runtime } = fakeRuntime({});
    const tools = await baseTools({ context: { runtime } });
    expect(errorOf(await tools.call("agents__list", { all: true })).code).toBe("E_TOOL_INVALID_ARGS");
  });
});
