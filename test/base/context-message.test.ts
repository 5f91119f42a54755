/**
 * context-message adds upstream's runtime blocks to the system prompt of each model call (never to the
 * conversation): the swarm catalog from the runtime, a connector's inbound event with its properties, and
 * the call context of a request from another agent.
 */
import { describe, expect, it } from "bun:test";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import type { AgentToolRuntime } from "../../src/tools/types.ts";
import { userEvent } from "../agent/support/test-env.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { baseExtensionUse, withBaseExtensions } from "./extension-harness.ts";

const runtime = {
  catalog: async () => ({
    agents: [
      { name: "assistant", entry: true },
      { name: "worker", description: "does the heavy lifting", entry: false },
    ],
  }),
} as unknown as AgentToolRuntime;

const systemOf = (call: { prompt: { role: string; content: unknown }[] } | undefined) =>
  String(call?.prompt.find((message) => message.role === "system")?.content ?? "");

const telegramEvent = () =>
  userEvent("hello from telegram", {
    type: "connector.telegram_message",
    source: { kind: "connector", name: "telegram-to-brain" },
    instanceKey: "shared",
    metadata: {
      connector: "telegram-polling",
      connection: "telegram-to-brain",
      event: "telegram_message",
      properties: { chat_id: "4242", from_username: "alice" },
      message: { type: "text", text: "hello from telegram" },
    },
  });

describe("context-message", () => {
  it("adds the swarm catalog and a connector's inbound event to every step's system prompt", async () => {
    const scripted = scriptedModel([{ toolCalls: [{ name: "noop__run", args: {} }] }, { text: "done" }]);
    const harness = await withBaseExtensions({
      model: scripted.model,
      runtime,
      systemPrompt: "You are the front desk.",
      uses: [baseExtensionUse("context-message", { includeSwarmCatalog: true })],
    });
    harness.registerTool({ name: "noop__run", parameters: { type: "object", properties: {} } }, () => "ok");
    await runTurn({ env: harness.env, event: telegramEvent() });
    const system = systemOf(scripted.calls[0]);
    expect(system.startsWith("You are the front desk.\n\n[runtime_catalog]\n")).toBe(true);
    expect(system).toContain(
      "entryAgent=assistant\nselfAgent=assistant\navailableAgents=assistant, worker\ncallableAgents=worker\nagent.worker=does the heavy lifting\n[/runtime_catalog]",
    );
    expect(system).toContain("[runtime_inbound]\n");
    expect(system).toContain("sourceKind=connector\nsourceName=telegram-to-brain");
    expect(system).toContain(
      'eventMetadata={"connector":"telegram-polling","connection":"telegram-to-brain","event":"telegram_message","properties":{"chat_id":"4242","from_username":"alice"}}',
    );
    expect(systemOf(scripted.calls[1])).toBe(system);
    expect(harness.env.conversation.messages.some((message) => message.data.role === "system")).toBe(false);
  });

  it("shows the inbound block for connector and agent events unless told, and the call block for agent requests", async () => {
    const scripted = scriptedModel([{ text: "a" }, { text: "b" }]);
    const harness = await withBaseExtensions({
      model: scripted.model,
      runtime,
      uses: [baseExtensionUse("context-message", { includeCallContext: true, includeRouteSummary: true })],
    });
    await runTurn({ env: harness.env, event: userEvent("from the api") });
    expect(systemOf(scripted.calls[0])).not.toContain("[runtime_call]");
    expect(systemOf(scripted.calls[0])).not.toContain("[runtime_inbound]");
    expect(systemOf(scripted.calls[0])).toContain("[runtime_route]\nprecedence=call>inbound\nsenderKind=user");
    await runTurn({
      env: harness.env,
      event: userEvent("please help", {
        type: "agent.request",
        source: { kind: "agent", name: "coordinator", instanceKey: "shared" },
        callChain: ["coordinator"],
        replyTo: { target: "coordinator/shared", correlationId: "corr_9" },
      }),
    });
    const system = systemOf(scripted.calls[1]);
    expect(system).toContain(
      "[runtime_call]\ncallerAgent=coordinator\ncallerInstanceKey=shared\ncallSource=agent.request\ncallStack=coordinator\nreplyTo.target=coordinator/shared\nreplyTo.correlationId=corr_9\n[/runtime_call]",
    );
    expect(system).toContain("[runtime_route]\nprecedence=call>inbound\nsenderKind=agent\nsenderName=coordinator");
    expect(system).toContain("[runtime_inbound]\neventId=");
    expect(system).toContain("sourceKind=agent\nsourceName=coordinator\nsourceInstanceKey=shared\n");
  });

  it("can be told never to show the inbound block", async () => {
    const scripted = scriptedModel([{ text: "a" }]);
    const harness = await withBaseExtensions({
      model: scripted.model,
      runtime,
      uses: [baseExtensionUse("context-message", { includeInboundContext: false })],
    });
    await runTurn({ env: harness.env, event: telegramEvent() });
    expect(systemOf(scripted.calls[0])).toBe("You are a test assistant.");
  });

  it("still runs the turn when the catalog cannot be fetched, and says so", async () => {
    const scripted = scriptedModel([{ text: "fine" }]);
    const broken = {
      catalog: async () => Promise.reject(new Error("orchestrator gone")),
    } as unknown as AgentToolRuntime;
    const harness = await withBaseExtensions({
      model: scripted.model,
      runtime: broken,
      uses: [baseExtensionUse("context-message", { includeSwarmCatalog: true })],
    });
    expect((await runTurn({ env: harness.env, event: userEvent("hi") })).result.status).toBe("ok");
    expect(harness.logs.some((line) => line.level === 40 && String(line.msg).includes("catalog"))).toBe(true);
  });
});
