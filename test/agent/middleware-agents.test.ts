/**
 * `ctx.agents` in turn and step middleware goes through the agent's runtime (the one the `agents` tool
 * uses): requests, sends and the catalog reach it with the caller's options, error replies reject with
 * their code, and an async request returns its correlationId at once.
 */
import { describe, expect, it } from "bun:test";
import { middlewareAgents } from "../../src/agent/loop/middleware-agents.ts";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import type { AgentReply, AgentRequestOptions, AgentToolRuntime } from "../../src/tools/types.ts";
import { failedReply } from "../../src/protocol/turn-outcome.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { testEnv, userEvent } from "./support/test-env.ts";

function recordingRuntime(reply: (options: AgentRequestOptions) => AgentReply): {
  runtime: AgentToolRuntime;
  calls: { method: string; options: unknown }[];
} {
  const calls: { method: string; options: unknown }[] = [];
  const runtime = {
    request: async (options: AgentRequestOptions) => {
      calls.push({ method: "request", options });
      return options.async === true ? { correlationId: "corr_async" } : reply(options);
    },
    send: async (options: unknown) => {
      calls.push({ method: "send", options });
      return { eventId: "evt_sent" };
    },
    catalog: async () => ({
      agents: [
        { name: "front", entry: true },
        { name: "memory", description: "remembers", entry: false },
      ],
    }),
    spawn: async () => Promise.reject(new Error("unused")),
    list: async () => Promise.reject(new Error("unused")),
    restart: async () => Promise.reject(new Error("unused")),
  } as unknown as AgentToolRuntime;
  return { runtime, calls };
}

const ok = (options: AgentRequestOptions): AgentReply => ({
  agent: options.target,
  instanceKey: "shared",
  correlationId: "corr_1",
  eventId: "evt_1",
  turnId: "turn_1",
  finishReason: "stop",
  status: "ok",
  response: `${options.target} says hi`,
});

describe("ctx.agents", () => {
  it("requests with the caller's options and resolves with the response text", async () => {
    const { runtime, calls } = recordingRuntime(ok);
    const agents = middlewareAgents(runtime);
    await expect(
      agents.request({ target: "memory", input: "what do you know?", timeoutMs: 5000, metadata: { why: "context" } }),
    ).resolves.toEqual({
      target: "memory",
      instanceKey: "shared",
      response: "memory says hi",
      correlationId: "corr_1",
    });
    expect(calls[0]).toEqual({
      method: "request",
      options: {
        target: "memory",
        input: "what do you know?",
        timeoutMs: 5000,
        metadata: { why: "context" },
        async: false,
      },
    });
  });

  it("rejects with the reply's code when the target answers with an error", async () => {
    const { runtime } = recordingRuntime((options) =>
      failedReply({
        agent: options.target,
        instanceKey: "",
        correlationId: "c",
        error: { code: "E_CIRCULAR_CALL_DETECTED", message: "memory is already waiting" },
      }),
    );
    await expect(middlewareAgents(runtime).request({ target: "memory" })).rejects.toMatchObject({
      code: "E_CIRCULAR_CALL_DETECTED",
    });
  });

  it("returns at once for an async request, and sends without waiting", async () => {
    const { runtime, calls } = recordingRuntime(ok);
    const agents = middlewareAgents(runtime);
    expect(await agents.request({ target: "memory", input: "later", async: true })).toEqual({
      target: "memory",
      response: "",
      correlationId: "corr_async",
      accepted: true,
      async: true,
    });
    expect(await agents.send({ target: "observer", input: "note this", instanceKey: "k" })).toEqual({
      accepted: true,
      eventId: "evt_sent",
    });
    expect(calls[1]).toEqual({ method: "send", options: { target: "observer", input: "note this", instanceKey: "k" } });
    expect((await agents.catalog()).agents.map((agent) => agent.name)).toEqual(["front", "memory"]);
  });

  it("is on the turn and step contexts of a running turn", async () => {
    const { runtime, calls } = recordingRuntime(ok);
    const harness = testEnv({ model: scriptedModel([{ text: "done" }]).model });
    const scopes: unknown[] = [];
    harness.env.runtime = (scope) => {
      scopes.push(scope);
      return runtime;
    };
    const seen: string[] = [];
    harness.env.pipeline.register("turn", async (ctx) => {
      const { response } = await ctx.agents.request({ target: "memory", input: ctx.inputEvent.input });
      seen.push(response);
      const result = await ctx.next();
      await ctx.agents.send({ target: "observer", input: result.response });
      return result;
    });
    harness.env.pipeline.register("step", async (ctx) => {
      seen.push((await ctx.agents.catalog()).agents.length.toString());
      return ctx.next();
    });
    const { result } = await runTurn({ env: harness.env, event: userEvent("remember the milk") });
    expect(result.status).toBe("ok");
    expect(seen).toEqual(["memory says hi", "2"]);
    expect(calls.map((call) => call.method)).toEqual(["request", "send"]);
    expect(calls[1]?.options).toMatchObject({ target: "observer", input: "done" });
    expect(scopes).toContainEqual(
      expect.objectContaining({ traceId: "0".repeat(32), callChain: [], parentSpanId: expect.any(String) }),
    );
  });
});
