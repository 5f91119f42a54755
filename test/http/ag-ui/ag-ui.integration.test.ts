/**
 * The AG-UI surface driven by `@ag-ui/client`'s HttpAgent (which also checks the order of the events it receives)
 * against a real `goondan run` on the loopback LLM: a run whose entry agent delegates through a tool call streams
 * RUN_STARTED, the call with its arguments, end and result, the reply text and RUN_FINISHED; a run stopped by a tool
 * call a person must approve ends with an interrupt whose id is the approval's, and a later run with `resume`
 * approves it through the same durable approval (the tool's side effect happens once) and finishes.
 */
import { describe, expect, it } from "bun:test";
import { HttpAgent, type BaseEvent } from "@ag-ui/client";
import { lastRole, roleOf } from "../../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { lastUserText, type LoopbackReply, type LoopbackRequest } from "../../helpers/loopback-llm.ts";
import { approvalsWorld, pendingApprovals } from "../../orchestrator/approvals-fixture.ts";
import { serveRealSwarm } from "../run-fixture.ts";

const defer = useCleanups();

function delegating(request: LoopbackRequest): LoopbackReply {
  if (roleOf(request) === "worker") return { text: "worker done" };
  if (lastRole(request) === "user")
    return {
      toolCalls: [{ name: "agents__request", args: { target: "worker", input: `help with ${lastUserText(request)}` } }],
    };
  return { text: "All done, in pieces.", chunkDelayMs: 30, textPieces: 4 };
}

/** An event as the test reads it: its type, and the fields of that type. */
// biome-ignore lint/suspicious/noExplicitAny: the fields differ by event type; the assertions check them
type Seen = { type: string } & Record<string, any>;

/** Runs the agent once and returns the events it received, in order. */
async function runOnce(agent: HttpAgent, parameters: Parameters<HttpAgent["runAgent"]>[0]) {
  const events: Seen[] = [];
  await agent.runAgent(parameters, { onEvent: ({ event }: { event: BaseEvent }) => void events.push(event as Seen) });
  return events;
}

describe("POST /v1/ag-ui with @ag-ui/client, real processes", () => {
  it("streams a run with its tool call (arguments and result), the reply text and RUN_FINISHED", async () => {
    const run = await serveRealSwarm({ defer, streaming: true, llm: { respond: delegating } });
    const agent = new HttpAgent({ url: `${run.base}/v1/ag-ui`, threadId: "thread-1" });
    agent.addMessage({ id: "user-1", role: "user", content: "the report" });
    const events = await runOnce(agent, { runId: "run-1" });

    const types = events.map((event) => event.type);
    expect(types[0]).toBe("RUN_STARTED");
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(events.at(-1)?.outcome).toEqual({ type: "success" });
    const start = events.find((event) => event.type === "TOOL_CALL_START");
    expect(start).toMatchObject({
      toolCallName: "agents__request",
      metadata: { agent: "coordinator", instanceKey: "thread-1" },
    });
    const args = events.find((event) => event.type === "TOOL_CALL_ARGS" && event.toolCallId === start?.toolCallId);
    expect(JSON.parse(args?.delta)).toEqual({ target: "worker", input: "help with the report" });
    expect(types.indexOf("TOOL_CALL_END")).toBeGreaterThan(types.indexOf("TOOL_CALL_ARGS"));
    const result = events.find((event) => event.type === "TOOL_CALL_RESULT" && event.toolCallId === start?.toolCallId);
    expect(result?.content).toContain("worker done");
    const text = events.filter((event) => event.type === "TEXT_MESSAGE_CONTENT").map((event) => event.delta);
    expect(text.length).toBeGreaterThan(1);
    expect(text.join("")).toBe("All done, in pieces.");
    // The client built the thread's messages from the stream.
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "All done, in pieces." });
  });

  it("ends a held run with an interrupt, and a run with resume approves it once and finishes", async () => {
    const world = await approvalsWorld(defer);
    const { base } = await world.start();
    const agent = new HttpAgent({ url: `${base}/v1/ag-ui`, threadId: "thread-approve" });
    agent.addMessage({ id: "user-1", role: "user", content: "job-7" });
    const held = await runOnce(agent, { runId: "run-held" });
    const finished = held.at(-1);
    expect(finished?.type).toBe("RUN_FINISHED");
    expect(finished?.outcome.type).toBe("interrupt");
    const [interrupt] = finished?.outcome.interrupts ?? [];
    const [approval] = await pendingApprovals(base);
    expect(interrupt).toMatchObject({ id: approval?.id, reason: "tool_approval", toolCallId: expect.any(String) });
    expect(interrupt.metadata).toMatchObject({ toolName: "effects__append", arguments: { id: "job-7" } });
    expect(agent.pendingInterrupts.map((pending) => pending.id)).toEqual([approval?.id as string]);
    expect(world.effects()).toEqual([]);

    const resumed = await runOnce(agent, {
      runId: "run-resumed",
      resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }],
    });
    expect(resumed.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    expect(resumed.find((event) => event.type === "TOOL_CALL_START")?.toolCallName).toBe("effects__append");
    const reply = resumed.filter((event) => event.type === "TEXT_MESSAGE_CONTENT").map((event) => event.delta);
    expect(reply.join("")).toContain("tool said:");
    expect(world.effects()).toEqual(["job-7"]);
    expect(await pendingApprovals(base)).toEqual([]);

    // The same approval cannot be decided twice: a second resume is the run's error, not a second side effect.
    const again = await fetch(`${base}/v1/ag-ui`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId: "thread-approve",
        runId: "run-again",
        messages: [],
        resume: [{ interruptId: interrupt.id, status: "resolved" }],
      }),
    });
    const text = await again.text();
    expect(text).toContain('"type":"RUN_ERROR"');
    expect(text).toContain("E_APPROVAL_DECIDED");
    expect(world.effects()).toEqual(["job-7"]);
  });
});
