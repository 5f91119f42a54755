/**
 * The orchestrator in-process with the real Bun spawner and real agent children (src/agent/entry.ts) on an
 * openai-compatible model pointed at the loopback LLM server: delegation, cycles, kill -9 mid-turn, crash
 * loops and idle reaping that keeps the conversation.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import { Orchestrator } from "../../src/orchestrator/orchestrator.ts";
import { bunProcessSpawner } from "../../src/supervision/process-spawner.ts";
import {
  startLoopbackLlm,
  toolResults,
  lastUserText,
  type LoopbackLlmOptions,
  type LoopbackRequest,
} from "../helpers/loopback-llm.ts";
import { childEnv, lastRole, roleOf, writeSwarmBundle } from "../fixtures/orchestrator/real-swarm.ts";
import { isAlive, until as pollUntil } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { storedInstanceState } from "../helpers/stored-state.ts";

const defer = useCleanups();

async function setup(options: { respond: LoopbackLlmOptions["respond"]; policy?: Record<string, unknown> }) {
  const llm = await startLoopbackLlm({ respond: options.respond });
  const dir = writeSwarmBundle({ endpoint: llm.url, ...(options.policy ? { policy: options.policy } : {}) });
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-agents-"));
  const orchestrator = new Orchestrator({
    bundle: await loadBundleOrThrow(dir),
    stateRoot,
    spawner: bunProcessSpawner({ output: "ignore" }),
    env: { ...process.env, ...childEnv },
  });
  defer(async () => {
    await orchestrator.shutdown({ reason: "test over", gracePeriodMs: 1000 });
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  });
  return { llm, dir, stateRoot, orchestrator };
}

const toolCall = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, args }] });
const lastToolResult = (request: LoopbackRequest) => toolResults(request).at(-1)?.content;

/**
 * The coordinator asks the worker for a report with `async: true` and ends its turn; the worker answers once
 * `releaseWorker()` is called; a turn that sees the async reply says "noted: <reply>".
 */
function asyncReport(): { respond: LoopbackLlmOptions["respond"]; releaseWorker: () => void } {
  let releaseWorker: () => void = () => {};
  const workerMayAnswer = new Promise<void>((resolve) => (releaseWorker = resolve));
  const respond: LoopbackLlmOptions["respond"] = async (request) => {
    if (roleOf(request) === "worker") {
      await workerMayAnswer;
      return { text: "the report has 3 pages" };
    }
    const last = lastUserText(request);
    if (last.startsWith("[async reply from agent worker/"))
      return { text: `noted: ${last.slice(last.indexOf("\n") + 1)}` };
    if (lastRole(request) === "tool") return { text: "asked the worker; I will report back" };
    return toolCall("agents__request", { target: "worker", input: "write the report", async: true });
  };
  return { respond, releaseWorker: () => releaseWorker() };
}

const until = <T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000) =>
  pollUntil(probe, { timeoutMs, intervalMs: 20 });

describe("orchestrator with real agent children", () => {
  it("delegation A -> B returns B's answer to A, B's turn running between A's two model calls", async () => {
    const { llm, orchestrator } = await setup({
      respond: (request) => {
        if (roleOf(request) === "worker") return { text: "forty-two" };
        if (lastRole(request) === "tool") return { text: `worker says: ${JSON.stringify(lastToolResult(request))}` };
        return toolCall("agents__request", { target: "worker", input: "what is six times seven?" });
      },
    });
    const outcome = await orchestrator.submit({ input: "please delegate" }).outcome;
    expect(outcome.status).toBe("ok");
    expect(outcome.response).toContain("forty-two");
    expect(llm.requests.map(roleOf)).toEqual(["coordinator", "worker", "coordinator"]);
    expect(lastUserText(llm.requests[1] as LoopbackRequest)).toBe("what is six times seven?");
    const pids = orchestrator.processes().map((row) => row.pid);
    expect(pids).toHaveLength(2);
    expect(new Set(pids).size).toBe(2);
    expect(llm.unexpected).toEqual([]);
  });

  it("refuses a cycle coordinator -> worker -> coordinator with E_CIRCULAR_CALL_DETECTED as a tool error", async () => {
    const { llm, orchestrator } = await setup({
      respond: (request) => {
        if (lastRole(request) === "tool")
          return { text: `${roleOf(request)} saw ${JSON.stringify(lastToolResult(request))}` };
        return roleOf(request) === "worker"
          ? toolCall("agents__request", { target: "coordinator", input: "loop back" })
          : toolCall("agents__request", { target: "worker", input: "go" });
      },
    });
    const outcome = await orchestrator.submit({ input: "start" }).outcome;
    expect(outcome.status).toBe("ok");
    expect(outcome.response).toContain("E_CIRCULAR_CALL_DETECTED");
    expect(llm.requests.map(roleOf)).toEqual(["coordinator", "worker", "worker", "coordinator"]);
  });

  it("a child killed with SIGKILL mid-turn is restarted, resumes, and the reply is delivered once", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "goondan-marker-")), "slept");
    defer(() => rmSync(marker, { force: true }));
    const { orchestrator } = await setup({
      respond: (request) =>
        lastRole(request) === "tool"
          ? { text: `finished with ${JSON.stringify(lastToolResult(request))}` }
          : toolCall("slow__sleep", { ms: 5000, marker }),
    });
    const results: unknown[] = [];
    const submitted = orchestrator.submit({ input: "do the slow thing" });
    void submitted.outcome.then((outcome) => results.push(outcome));
    await until(() => existsSync(marker));
    const pid = Number(readFileSync(marker, "utf8"));
    expect(pid).toBeGreaterThan(1);
    process.kill(pid, "SIGKILL");
    const outcome = await submitted.outcome;
    expect(outcome.status).toBe("ok");
    // The sleep that was running is not run again behind the model's back: it is told how the process died.
    expect(outcome.response).toContain("finished");
    expect(outcome.response).toContain("E_TOOL_INTERRUPTED");
    expect(outcome.response).toContain("it was killed by SIGKILL");
    await Bun.sleep(50);
    expect(results).toHaveLength(1);
    expect(orchestrator.processes()[0]).toMatchObject({ restarts: 1, consecutiveCrashes: 0 });
  });

  it("a child that cannot start answers the waiting event with E_AGENT_CRASHED, backs off, and recovers once its files are fixed", async () => {
    const { dir, orchestrator } = await setup({
      respond: () => ({ text: "back in business" }),
      policy: { restart: { maxConsecutiveCrashes: 1, initialBackoffMs: 200, maxBackoffMs: 400 } },
    });
    const tool = join(dir, "tools", "slow.ts");
    renameSync(tool, `${tool}.away`);
    const given = await orchestrator.submit({ input: "hello" }).outcome;
    expect(given).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
    expect(orchestrator.processes()[0]?.status).toBe("crashLoopBackOff");
    renameSync(`${tool}.away`, tool);
    await until(() => orchestrator.processes()[0]?.status === "idle");
    const outcome = await orchestrator.submit({ input: "hello again" }).outcome;
    expect(outcome).toMatchObject({ status: "ok", response: "back in business" });
    expect(orchestrator.processes()[0]).toMatchObject({ status: "idle", consecutiveCrashes: 0 });
  });

  it("a request to an agent whose extension throws in register gets E_AGENT_CRASHED with the cause, long before its deadline", async () => {
    const { llm, dir, orchestrator } = await setup({
      respond: (request) =>
        lastRole(request) === "tool"
          ? { text: `worker failed: ${JSON.stringify(lastToolResult(request))}` }
          : toolCall("agents__request", { target: "worker", input: "help" }),
      policy: { requestTimeoutMs: 60_000 },
    });
    mkdirSync(join(dir, "extensions"));
    writeFileSync(
      join(dir, "extensions", "broken.ts"),
      'export function register() {\n  throw new Error("broken on purpose");\n}\n',
    );
    const yaml = join(dir, "goondan.yaml");
    const extension =
      "---\napiVersion: goondan.ai/v1\nkind: Extension\nmetadata: { name: broken }\nspec:\n  entry: ./extensions/broken.ts\n";
    writeFileSync(
      yaml,
      readFileSync(yaml, "utf8").replace(
        'prompt: { system: "ROLE=worker" }',
        'prompt: { system: "ROLE=worker" }\n  extensions: [{ ref: Extension/broken }]',
      ) + extension,
    );
    await orchestrator.reload({ bundle: await loadBundleOrThrow(dir), agents: [] });
    const started = Date.now();
    const outcome = await orchestrator.submit({ input: "delegate" }).outcome;
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(outcome.status).toBe("ok");
    expect(outcome.response).toContain("E_AGENT_CRASHED");
    expect(outcome.response).toContain("broken on purpose");
    expect(llm.requests.map(roleOf)).toEqual(["coordinator", "coordinator"]);
    expect(orchestrator.processes().find((row) => row.agent === "worker")).toMatchObject({
      status: "crashLoopBackOff",
      queued: 0,
    });
  });

  it("reaps an idle instance and its next child continues the same conversation", async () => {
    const { llm, orchestrator } = await setup({
      respond: (request) => ({ text: `reply to ${lastUserText(request)}` }),
      policy: { lifecycle: { idleSeconds: 1 } },
    });
    await orchestrator.submit({ input: "my name is Ada" }).outcome;
    const firstPid = orchestrator.processes()[0]?.pid;
    await until(() => orchestrator.processes().length === 0, 20_000);
    const outcome = await orchestrator.submit({ input: "what is my name?" }).outcome;
    expect(outcome.response).toBe("reply to what is my name?");
    expect(orchestrator.processes()[0]?.pid).not.toBe(firstPid);
    const history = JSON.stringify((llm.requests.at(-1) as LoopbackRequest).body.messages);
    expect(history).toContain("my name is Ada");
    expect(history).toContain("reply to my name is Ada");
  });

  it("wakes the coordinator with a turn of its own when the worker answers its async request after its turn ended", async () => {
    const { respond, releaseWorker } = asyncReport();
    const { llm, orchestrator } = await setup({ respond });
    const first = await orchestrator.submit({ input: "get me the report" }).outcome;
    expect(first.response).toBe("asked the worker; I will report back");
    releaseWorker();
    const woken = await until(() =>
      llm.requests.find(
        (request) =>
          roleOf(request) === "coordinator" && lastUserText(request).startsWith("[async reply from agent worker/"),
      ),
    );
    expect(lastUserText(woken)).toEndWith("status ok]\nthe report has 3 pages");
    const events = await until(async () => {
      const lines = (await orchestrator.runtimeEvents({ agent: "coordinator", instanceKey: "duo" })).map(
        (stored) => stored.event as { type: string; data?: { eventType?: string } },
      );
      return lines.some((line) => line.type === "turn.completed") &&
        lines.filter((line) => line.type === "turn.started").length === 2
        ? lines
        : undefined;
    });
    expect(events.filter((line) => line.type === "turn.started").map((line) => line.data?.eventType)).toEqual([
      "user.input",
      "results.arrived",
    ]);
    expect(llm.requests.map(roleOf).sort()).toEqual(["coordinator", "coordinator", "coordinator", "worker"]);
    expect(llm.requests.at(-1)).toBe(woken);
    await until(async () =>
      (await orchestrator.instances()).every((row) => row.queued === 0 && row.status !== "processing"),
    );
  });

  it("keeps an async reply that arrives while the orchestrator drains, and the next orchestrator wakes the requester with it", async () => {
    const { respond, releaseWorker } = asyncReport();
    const { llm, dir, stateRoot, orchestrator } = await setup({ respond });
    await orchestrator.submit({ input: "get me the report" }).outcome;
    await until(() => llm.requests.some((request) => roleOf(request) === "worker"));
    // The worker finishes inside the grace period; its requester is draining, so the reply is kept in the store.
    const stopping = orchestrator.shutdown({ reason: "restart", gracePeriodMs: 10_000 });
    releaseWorker();
    await stopping;
    const held = (
      await storedInstanceState({
        stateRoot,
        swarm: orchestrator.swarm.instanceKey,
        agent: "coordinator",
        instanceKey: "duo",
      })
    ).pendingResults;
    expect(held).toEqual([
      expect.objectContaining({ status: "ok", agent: "worker", response: "the report has 3 pages" }),
    ]);

    const next = new Orchestrator({
      bundle: await loadBundleOrThrow(dir),
      stateRoot,
      spawner: bunProcessSpawner({ output: "ignore" }),
      env: { ...process.env, ...childEnv },
    });
    defer(() => next.shutdown({ reason: "test over", gracePeriodMs: 1000 }));
    await next.start();
    const woken = await until(() =>
      llm.requests.find(
        (request) =>
          roleOf(request) === "coordinator" && lastUserText(request).startsWith("[async reply from agent worker/"),
      ),
    );
    expect(lastUserText(woken)).toEndWith("status ok]\nthe report has 3 pages");
    await until(async () =>
      (await next.instances()).find((row) => row.agent === "coordinator" && row.status === "idle"),
    );
    expect(llm.requests.filter((request) => roleOf(request) === "worker")).toHaveLength(1);
  }, 20_000);

  it("kills a child whose tool blocks its event loop once the heartbeat timeout passes, and answers E_AGENT_CRASHED", async () => {
    const { orchestrator } = await setup({
      respond: () => toolCall("slow__freeze", { ms: 60_000 }),
      policy: { lifecycle: { heartbeatTimeoutSeconds: 2 }, restart: { maxConsecutiveCrashes: 1 } },
    });
    const started = Date.now();
    const submitted = orchestrator.submit({ input: "freeze please" });
    const pid = await until(() => orchestrator.processes()[0]?.pid ?? undefined);
    const outcome = await submitted.outcome;
    expect(outcome).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
    expect(outcome.error?.message).toContain("without a heartbeat during a turn");
    expect(Date.now() - started).toBeLessThan(15_000);
    await until(() => !isAlive(pid));
  }, 20_000);

  it("tells the model on the redelivery that its tool call froze the agent, and the turn ends normally", async () => {
    const { llm, orchestrator } = await setup({
      respond: (request) => {
        const last = lastRole(request) === "tool" ? JSON.stringify(lastToolResult(request)) : "";
        return last.includes("E_TOOL_INTERRUPTED")
          ? { text: `freeze is broken: ${last}` }
          : toolCall("slow__freeze", { ms: 60_000 });
      },
      policy: { lifecycle: { heartbeatTimeoutSeconds: 2 }, restart: { maxConsecutiveCrashes: 2 } },
    });
    const outcome = await orchestrator.submit({ input: "freeze please" }).outcome;
    expect(outcome.status).toBe("ok");
    expect(outcome.response).toContain("freeze is broken");
    expect(outcome.response).toContain("without a heartbeat during a turn");
    expect(llm.requests).toHaveLength(2);
    expect(orchestrator.processes()[0]).toMatchObject({ restarts: 1, consecutiveCrashes: 0 });
  }, 20_000);
});
