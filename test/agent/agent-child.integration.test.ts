import { describe, expect, it } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { instancePaths } from "../../src/shared/state-paths.ts";
import { STORE_FAULT_EXIT_CODE } from "../../src/protocol/ipc-messages.ts";
import { startLoopbackLlm, systemPrompt, toolNames, toolResults } from "../helpers/loopback-llm.ts";
import {
  agentEvent,
  CHILD_INSTANCE,
  spawnAgentChild,
  startChildOnLoopback,
  writeFixtureBundle,
} from "./support/child-harness.ts";
import { storeFor, tempStateRoot } from "./support/test-env.ts";
import { killChild, useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();

const paths = (stateRoot: string) =>
  instancePaths({ stateRoot, swarmInstanceKey: "fixture-key", agent: "assistant", instanceKey: "main" });
/** The types of the runtime events the child handed over, in order (the harness stores them as the orchestrator does). */
const storedEventTypes = async (stateRoot: string) =>
  (await storeFor(stateRoot).runtimeEvents({ swarm: CHILD_INSTANCE.swarm })).map((stored) => stored.event.type);

for (const stream of [false, true]) {
  describe(`agent child over IPC (${stream ? "SSE" : "JSON"})`, () => {
    it("runs a turn with a tool call against the loopback LLM and replies once", async () => {
      const server = await startLoopbackLlm({
        replies: [
          { toolCalls: [{ id: "call_a", name: "slow__echo", args: { text: "ping" } }] },
          { text: "pong received" },
        ],
      });
      defer(() => server.close());
      const stateRoot = tempStateRoot();
      const child = spawnAgentChild({ bundle: writeFixtureBundle({ endpoint: server.url, stream }), stateRoot });
      defer(killChild(child));
      const ready = await child.waitFor("ready");
      expect(ready.payload).toMatchObject({ agent: "assistant", instanceKey: "main", pid: child.pid });
      const event = agentEvent("please echo ping");
      child.send("event", { event, attempt: 1 });
      const result = await child.waitFor("turn_result");
      expect(result.payload).toMatchObject({
        eventId: event.id,
        status: "ok",
        response: "pong received",
        finishReason: "stop",
      });
      expect(child.messages.filter((message) => message.type === "turn_result")).toHaveLength(1);

      const [first, second] = server.requests;
      expect(systemPrompt(first!)).toBe("You are the fixture assistant.");
      expect(toolNames(first!)).toEqual(["slow__echo", "slow__sleep", "delegate__ask", "delegate__ask_later"]);
      expect(first!.body.temperature).toBe(0.2);
      expect(first!.headers.authorization).toBe("Bearer sk-loopback-secret");
      expect(first!.stream).toBe(stream);
      expect(toolResults(second!)).toEqual([
        { toolCallId: "call_a", content: { status: "ok", output: { echoed: "ping" } } },
      ]);
      expect(server.unexpected).toHaveLength(0);

      await Bun.sleep(50);
      expect(
        storeFor(stateRoot)
          .instanceState(CHILD_INSTANCE)
          .messages.map((message) => message.data.role),
      ).toEqual(["user", "assistant", "tool", "assistant"]);
      const runtimeEvents = await storedEventTypes(stateRoot);
      expect(runtimeEvents).toContain("tool.completed");
      expect(runtimeEvents.at(-1)).toBe("turn.completed");
    });
  });
}

describe("agent child lifecycle", () => {
  it("answers a structured error when the model keeps failing, without crashing", async () => {
    const { child } = await startChildOnLoopback({
      defer,
      llm: { replies: [{ fail: { status: 401 } }, { text: "still alive" }] },
    });
    await child.waitFor("ready");
    child.send("event", { event: agentEvent("one"), attempt: 1 });
    const failed = await child.waitFor("turn_result");
    expect(failed.payload).toMatchObject({ status: "error", error: { code: "E_MODEL_AUTH_FAILED" } });
    child.send("event", { event: agentEvent("two"), attempt: 1 });
    const ok = await child.waitFor("turn_result", (message) => message.payload.status === "ok");
    expect(ok.payload.response).toBe("still alive");
  });

  it("gives up on a model call after Model options.timeoutMs and asks again", async () => {
    const { server, child } = await startChildOnLoopback({
      defer,
      llm: { replies: [{ text: "too late", delayMs: 10_000 }, { text: "answered on retry" }] },
      bundle: { replace: { from: "options: { stream: false }", to: "options: { stream: false, timeoutMs: 300 }" } },
    });
    await child.waitFor("ready");
    child.send("event", { event: agentEvent("hello"), attempt: 1 });
    const result = await child.waitFor("turn_result", undefined, 9_000); // under the 10 s late reply: the retry answered, not the first call
    expect(result.payload).toMatchObject({ status: "ok", response: "answered on retry" });
    expect(server.requests).toHaveLength(2);
  });

  it("sends fatal and exits 1 when its model key is missing", async () => {
    const { child } = await startChildOnLoopback({ defer, llm: {}, env: { LOOPBACK_API_KEY: "" } });
    const fatal = await child.waitFor("fatal");
    expect(fatal.payload.code).toBe("E_CONFIG_ENV_MISSING");
    expect(await child.exited).toBe(1);
  });

  it("finishes the current turn on shutdown, then acks and exits 0", async () => {
    const { child } = await startChildOnLoopback({
      defer,
      llm: { replies: [{ toolCalls: [{ name: "slow__sleep", args: { ms: 300 } }] }, { text: "woke up" }] },
    });
    await child.waitFor("ready");
    child.send("event", { event: agentEvent("sleep a bit"), attempt: 1 });
    await child.waitFor("turn_started");
    child.send("shutdown", { gracePeriodMs: 5_000, reason: "test" });
    const result = await child.waitFor("turn_result");
    expect(result.payload.response).toBe("woke up");
    await child.waitFor("shutdown_ack");
    expect(await child.exited).toBe(0);
  });

  it("ignores SIGINT and treats SIGTERM as a graceful shutdown: the turn finishes, then it acks and exits 0", async () => {
    const { child } = await startChildOnLoopback({
      defer,
      llm: { replies: [{ toolCalls: [{ name: "slow__sleep", args: { ms: 300 } }] }, { text: "woke up" }] },
    });
    await child.waitFor("ready");
    child.send("event", { event: agentEvent("sleep a bit"), attempt: 1 });
    await child.waitFor("turn_started");
    child.kill("SIGINT");
    child.kill("SIGTERM");
    const result = await child.waitFor("turn_result");
    expect(result.payload).toMatchObject({ status: "ok", response: "woke up" });
    expect((await child.waitFor("shutdown_ack")).payload.reason).toBe("SIGTERM");
    expect(await child.exited).toBe(0);
  });

  it("aborts a turn still running when the shutdown grace period ends; the redelivery answers the interrupted call", async () => {
    const server = await startLoopbackLlm({
      replies: [{ toolCalls: [{ name: "slow__sleep", args: { ms: 30_000 } }] }, { text: "finished after restart" }],
    });
    defer(() => server.close());
    const bundle = writeFixtureBundle({ endpoint: server.url });
    const stateRoot = tempStateRoot();
    const child = spawnAgentChild({ bundle, stateRoot });
    defer(killChild(child));
    await child.waitFor("ready");
    const event = agentEvent("sleep forever");
    child.send("event", { event, attempt: 1 });
    await child.waitFor("turn_started");
    await Bun.sleep(200);
    child.send("shutdown", { gracePeriodMs: 300, reason: "test" });
    await child.waitFor("shutdown_ack", undefined, 20_000);
    expect(await child.exited).toBe(0);
    expect(child.messages.filter((message) => message.type === "turn_result")).toHaveLength(0);
    expect(server.requests).toHaveLength(1);

    const next = spawnAgentChild({ bundle, stateRoot });
    defer(killChild(next));
    await next.waitFor("ready");
    next.send("event", { event, attempt: 2 });
    const result = await next.waitFor("turn_result", undefined, 10_000);
    expect(result.payload).toMatchObject({ eventId: event.id, status: "ok", response: "finished after restart" });
    expect(server.requests).toHaveLength(2);
    // The step was committed before its tool ran: the redelivery shows the model that call as interrupted (it is
    // not run again behind its back) instead of a cancelled result or nothing at all.
    const resumed = JSON.stringify(server.requests[1]!.body.messages);
    expect(resumed).not.toContain("E_TOOL_CANCELLED");
    expect(resumed).toContain("E_TOOL_INTERRUPTED");
    expect(server.requests[1]!.body.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);
  });

  it("exits with the store-fault code without answering when the store refuses a step, so the next child starts from what the store holds", async () => {
    const server = await startLoopbackLlm({
      replies: [{ toolCalls: [{ id: "call_a", name: "slow__echo", args: { text: "ping" } }] }, { text: "never asked" }],
    });
    defer(() => server.close());
    const child = spawnAgentChild({
      bundle: writeFixtureBundle({ endpoint: server.url }),
      stateRoot: tempStateRoot(),
      refuseCommits: true,
    });
    defer(killChild(child));
    await child.waitFor("ready");
    child.send("event", { event: agentEvent("please echo ping"), attempt: 1 });
    // A store fault, not a crash of the event: the orchestrator backs it off and does not count it toward poison.
    expect(await child.exited).toBe(STORE_FAULT_EXIT_CODE);
    expect(child.messages.filter((message) => message.type === "turn_result")).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
    expect(await child.output()).toContain("the store refused this turn's step");
  });

  it("logs JSON with agent and instanceKey bound and never the api key", async () => {
    const { child } = await startChildOnLoopback({ defer, llm: { replies: [{ text: "hi" }] } });
    await child.waitFor("ready");
    child.send("event", { event: agentEvent("hello"), attempt: 1 });
    await child.waitFor("turn_result");
    child.send("shutdown", { gracePeriodMs: 1_000, reason: "test" });
    expect(await child.exited).toBe(0);
    const output = await child.output();
    const lines = output
      .trim()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    expect(lines.some((line) => line.agent === "assistant" && line.instanceKey === "main")).toBe(true);
    expect(output).not.toContain("sk-loopback-secret");
  });

  it("resumes a turn killed with -9 mid-tool and replies exactly once on redelivery", async () => {
    const server = await startLoopbackLlm({
      replies: [
        { text: "first turn done" },
        { toolCalls: [{ id: "call_sleep", name: "slow__sleep", args: { ms: 30_000 } }] },
        { text: "resumed and done" },
      ],
    });
    defer(() => server.close());
    const stateRoot = tempStateRoot();
    const bundle = writeFixtureBundle({ endpoint: server.url });
    const first = spawnAgentChild({ bundle, stateRoot });
    defer(killChild(first));
    await first.waitFor("ready");
    const committed = agentEvent("first");
    first.send("event", { event: committed, attempt: 1 });
    await first.waitFor("turn_result");
    const interrupted = agentEvent("sleep long");
    first.send("event", { event: interrupted, attempt: 1 });
    const files = paths(stateRoot);
    const marker = join(files.workdir, "sleeping.marker");
    for (let i = 0; i < 200 && !existsSync(marker); i++) await Bun.sleep(25);
    expect(existsSync(marker)).toBe(true);
    first.kill(9);
    await first.exited;

    // The step was committed before its tool ran; the turn has no outcome.
    const stored = storeFor(stateRoot).instanceState(CHILD_INSTANCE).messages;
    expect(stored.map((message) => [message.metadata.eventId ?? null, message.data.role])).toEqual([
      [committed.id, "user"],
      [null, "assistant"],
      [interrupted.id, "user"],
      [null, "assistant"],
    ]);

    // The orchestrator answers a committed event from its inbox; only the unanswered one is redelivered.
    const second = spawnAgentChild({ bundle, stateRoot });
    defer(killChild(second));
    await second.waitFor("ready");
    second.send("event", { event: interrupted, attempt: 2, crashedBefore: "killed by SIGKILL" });
    const resumed = await second.waitFor("turn_result", (message) => message.payload.eventId === interrupted.id);
    expect(resumed.payload).toMatchObject({ status: "ok", response: "resumed and done" });
    expect(second.messages.filter((message) => message.type === "turn_result")).toHaveLength(1);

    // The resumed call saw the interrupted tool call answered as interrupted, not run again.
    const resumedRequest = server.requests.at(-1)!;
    expect(resumedRequest.body.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
      "tool",
    ]);
    expect(JSON.stringify(resumedRequest.body.messages.at(-1))).toContain("E_TOOL_INTERRUPTED");
    expect(JSON.stringify(resumedRequest.body.messages.at(-1))).toContain("killed by SIGKILL");
    expect(server.requests).toHaveLength(3);
    await Bun.sleep(50);
    const runtimeEvents = await storedEventTypes(stateRoot);
    expect(runtimeEvents).toContain("conversation.recovered");
  });
});
