import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { instancePaths } from "../../src/shared/state-paths.ts";
import { startLoopbackLlm, systemPrompt, toolNames, toolResults } from "../helpers/loopback-llm.ts";
import { agentEvent, spawnAgentChild, startChildOnLoopback, writeFixtureBundle } from "./support/child-harness.ts";
import { tempStateRoot } from "./support/test-env.ts";
import { killChild, useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();

const paths = (stateRoot: string) => instancePaths({ stateRoot, swarmInstanceKey: "fixture-key", agent: "assistant", instanceKey: "main" });

for (const stream of [false, true]) {
  describe(`agent child over IPC (${stream ? "SSE" : "JSON"})`, () => {
    it("runs a turn with a tool call against the loopback LLM and replies once", async () => {
      const server = await startLoopbackLlm({ replies: [{ toolCalls: [{ id: "call_a", name: "slow__echo", args: { text: "ping" } }] }, { text: "pong received" }] });
      defer(() => server.close());
      const stateRoot = tempStateRoot();
      const child = spawnAgentChild({ bundle: writeFixtureBundle({ endpoint: server.url, stream }), stateRoot });
      defer(killChild(child));
      const ready = await child.waitFor("ready");
      expect(ready.payload).toMatchObject({ agent: "assistant", instanceKey: "main", pid: child.pid });
      const event = agentEvent("please echo ping");
      child.send("event", { event, attempt: 1 });
      const result = await child.waitFor("turn_result");
      expect(result.payload).toMatchObject({ eventId: event.id, status: "ok", response: "pong received", finishReason: "stop" });
      expect(child.messages.filter((message) => message.type === "turn_result")).toHaveLength(1);

      const [first, second] = server.requests;
      expect(systemPrompt(first!)).toBe("You are the fixture assistant.");
      expect(toolNames(first!)).toEqual(["slow__echo", "slow__sleep", "delegate__ask", "delegate__ask_later"]);
      expect(first!.body.temperature).toBe(0.2);
      expect(first!.headers.authorization).toBe("Bearer sk-loopback-secret");
      expect(first!.stream).toBe(stream);
      expect(toolResults(second!)).toEqual([{ toolCallId: "call_a", content: { status: "ok", output: { echoed: "ping" } } }]);
      expect(server.unexpected).toHaveLength(0);

      const files = paths(stateRoot);
      expect(readFileSync(files.events, "utf8")).toBe("");
      expect(readFileSync(files.base, "utf8").trim().split("\n")).toHaveLength(4);
      const runtimeEvents = readFileSync(files.runtimeEvents, "utf8").trim().split("\n").map((line) => JSON.parse(line).type);
      expect(runtimeEvents).toContain("tool.completed");
      expect(runtimeEvents.at(-1)).toBe("turn.completed");
    });
  });
}

describe("agent child lifecycle", () => {
  it("answers a structured error when the model keeps failing, without crashing", async () => {
    const { child } = await startChildOnLoopback({ defer, llm: { replies: [{ fail: { status: 401 } }, { text: "still alive" }] } });
    await child.waitFor("ready");
    child.send("event", { event: agentEvent("one"), attempt: 1 });
    const failed = await child.waitFor("turn_result");
    expect(failed.payload).toMatchObject({ status: "error", error: { code: "MODEL_AUTH_FAILED" } });
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
    const result = await child.waitFor("turn_result", undefined, 5_000);
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
    const { child } = await startChildOnLoopback({ defer, llm: { replies: [{ toolCalls: [{ name: "slow__sleep", args: { ms: 300 } }] }, { text: "woke up" }] } });
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
    const { child } = await startChildOnLoopback({ defer, llm: { replies: [{ toolCalls: [{ name: "slow__sleep", args: { ms: 300 } }] }, { text: "woke up" }] } });
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

  it("aborts a turn still running when the shutdown grace period ends and leaves it uncommitted for redelivery", async () => {
    const server = await startLoopbackLlm({ replies: [{ toolCalls: [{ name: "slow__sleep", args: { ms: 30_000 } }] }, { text: "finished after restart" }] });
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
    await child.waitFor("shutdown_ack", undefined, 5_000);
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
    // The aborted tool call left no (cancelled) result behind: the model is asked again from the user message.
    expect(JSON.stringify(server.requests[1]!.body.messages)).not.toContain("E_TOOL_CANCELLED");
    expect(server.requests[1]!.body.messages.map((message) => message.role)).toEqual(["system", "user"]);
  });

  it("logs JSON with agent and instanceKey bound and never the api key", async () => {
    const { child } = await startChildOnLoopback({ defer, llm: { replies: [{ text: "hi" }] } });
    await child.waitFor("ready");
    child.send("event", { event: agentEvent("hello"), attempt: 1 });
    await child.waitFor("turn_result");
    child.send("shutdown", { gracePeriodMs: 1_000, reason: "test" });
    expect(await child.exited).toBe(0);
    const output = await child.output();
    const lines = output.trim().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
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

    const pendingEvents = readFileSync(files.events, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(pendingEvents.map((line) => [line.eventId, line.event.message.data.role])).toEqual([[interrupted.id, "user"], [interrupted.id, "assistant"]]);

    const second = spawnAgentChild({ bundle, stateRoot });
    defer(killChild(second));
    await second.waitFor("ready");
    second.send("event", { event: committed, attempt: 2 });
    second.send("event", { event: interrupted, attempt: 2 });
    const replayed = await second.waitFor("turn_result", (message) => message.payload.eventId === committed.id);
    expect(replayed.payload.response).toBe("first turn done");
    const resumed = await second.waitFor("turn_result", (message) => message.payload.eventId === interrupted.id);
    expect(resumed.payload).toMatchObject({ status: "ok", response: "resumed and done" });
    expect(second.messages.filter((message) => message.type === "turn_result")).toHaveLength(2);

    // The resumed call saw one user message for the interrupted event and no dangling tool call.
    const resumedRequest = server.requests.at(-1)!;
    const roles = resumedRequest.body.messages.map((message) => message.role);
    expect(roles).toEqual(["system", "user", "assistant", "user"]);
    expect(server.requests).toHaveLength(3);
    const runtimeEvents = readFileSync(files.runtimeEvents, "utf8").trim().split("\n").map((line) => JSON.parse(line).type);
    expect(runtimeEvents).toContain("conversation.recovered");
  });
});
