/**
 * Shutdown with delegation in flight, with real agent children on the loopback LLM (issue 11, item 4): a
 * coordinator waiting on its worker gets the worker's reply during the drain and finishes, instead of waiting out
 * the grace period and being killed; a coordinator whose request is still queued behind the worker is cut short
 * (left uncommitted, answered by the next orchestrator), so the drain ends as soon as the running turns end.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import { Orchestrator } from "../../src/orchestrator/orchestrator.ts";
import { bunProcessSpawner } from "../../src/supervision/process-spawner.ts";
import { lastUserText, startLoopbackLlm, type LoopbackLlmOptions } from "../helpers/loopback-llm.ts";
import { until } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { childEnv, lastRole, roleOf, writeSwarmBundle } from "../fixtures/orchestrator/real-swarm.ts";

const defer = useCleanups();
const GRACE_SECONDS = 20;

async function setup(respond: LoopbackLlmOptions["respond"]) {
  const llm = await startLoopbackLlm({ respond });
  const dir = writeSwarmBundle({ endpoint: llm.url, policy: { shutdown: { gracePeriodSeconds: GRACE_SECONDS } } });
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-drain-"));
  const make = async () =>
    new Orchestrator({
      bundle: await loadBundleOrThrow(dir),
      stateRoot,
      spawner: bunProcessSpawner({ output: "ignore" }),
      env: { ...process.env, ...childEnv },
    });
  const orchestrator = await make();
  defer(async () => {
    await orchestrator.shutdown({ reason: "test over", gracePeriodMs: 1000 });
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  });
  await orchestrator.start();
  return { llm, orchestrator, make };
}

/** A gate the worker's model waits at, opened by the test. */
function gate(): { wait: Promise<void>; open(): void } {
  let open: () => void = () => {};
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open: () => open() };
}

const delegate = { toolCalls: [{ name: "agents__request", args: { target: "worker", input: "write the report" } }] };

describe("a drain with delegation in flight", () => {
  it("passes the worker's reply to the coordinator waiting for it, which finishes, and the drain ends long before the grace period", async () => {
    const worker = gate();
    const { llm, orchestrator } = await setup(async (request) => {
      if (roleOf(request) === "worker") {
        await worker.wait;
        return { text: "the report has 3 pages" };
      }
      return lastRole(request) === "tool" ? { text: "the worker says: done" } : delegate;
    });
    const submitted = orchestrator.submit({ input: "get me the report" });
    await until(() => llm.requests.some((request) => roleOf(request) === "worker"), { timeoutMs: 15_000 });
    const started = Date.now();
    const stopping = orchestrator.shutdown({ reason: "SIGTERM" });
    worker.open();
    const outcome = await submitted.outcome;
    await stopping;
    expect(outcome).toMatchObject({ status: "ok", response: "the worker says: done" });
    expect(Date.now() - started).toBeLessThan((GRACE_SECONDS * 1000) / 4);
  }, 30_000);

  it("cuts short a coordinator whose request waits behind the worker's running turn; the next orchestrator answers it", async () => {
    const worker = gate();
    const { llm, orchestrator, make } = await setup(async (request) => {
      if (roleOf(request) === "worker") {
        if (lastUserText(request) === "a long job") await worker.wait;
        return { text: `worker did: ${lastUserText(request)}` };
      }
      return lastRole(request) === "tool" ? { text: "coordinator done" } : delegate;
    });
    orchestrator.submit({ input: "a long job", agent: "worker", instanceKey: "duo" });
    await until(() => llm.requests.some((request) => lastUserText(request) === "a long job"), { timeoutMs: 15_000 });
    const coordinator = orchestrator.submit({ input: "get me the report" });
    await until(
      async () => (await orchestrator.instances()).find((row) => row.agent === "worker" && row.queued === 2),
      { timeoutMs: 15_000 },
    );
    const started = Date.now();
    const stopping = orchestrator.shutdown({ reason: "SIGTERM" });
    worker.open();
    await stopping;
    expect(Date.now() - started).toBeLessThan((GRACE_SECONDS * 1000) / 4);
    expect(await coordinator.outcome).toMatchObject({ status: "error", error: { code: "E_ORCHESTRATOR_STOPPED" } });

    const next = await make();
    defer(() => next.shutdown({ reason: "test over", gracePeriodMs: 1000 }));
    expect((await next.start()).resumed).toBeGreaterThanOrEqual(1);
    await until(
      () => llm.requests.find((request) => roleOf(request) === "coordinator" && lastRole(request) === "tool"),
      { timeoutMs: 15_000 },
    );
  }, 40_000);
});
