/**
 * Agent `spec.limits` with real agent children (docs/limits.md#resource-limits): a runaway tool that keeps
 * allocating memory is ended by the memory limit (a cgroup v2 where the daemon can write one, else the /proc
 * watchdog), its event is answered `E_LIMIT_MEMORY` instead of being redelivered, and the next event gets a fresh
 * process; open files are set as an rlimit on the child; a turn past `turnSeconds` makes no further model call.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundleOrThrow } from "../../../src/config/load-bundle.ts";
import { Orchestrator } from "../../../src/orchestrator/orchestrator.ts";
import { bunProcessSpawner } from "../../../src/supervision/process-spawner.ts";
import { limitSupport } from "../../../src/supervision/resource-limits.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { isAlive } from "../../helpers/goondan-process.ts";
import { lastUserText, startLoopbackLlm, toolResults, type LoopbackLlmOptions } from "../../helpers/loopback-llm.ts";
import { writeLimitsBundle } from "../../fixtures/limits/limits-bundle.ts";

const defer = useCleanups();
const childEnv = { LOOPBACK_API_KEY: "test-key", GOONDAN_LOG_LEVEL: "warn" };

async function setup(options: { limits: string; respond: LoopbackLlmOptions["respond"] }) {
  const llm = await startLoopbackLlm({ respond: options.respond });
  const dir = writeLimitsBundle({ endpoint: llm.url, agent: `limits: ${options.limits}` });
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-rlimits-"));
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
  return { llm, orchestrator };
}

describe("Agent spec.limits", () => {
  it("ends a runaway tool at the memory limit, answers its event E_LIMIT_MEMORY, and serves the next event", async () => {
    const { llm, orchestrator } = await setup({
      limits: "{ memoryMb: 256, openFiles: 200 }",
      respond: (request) =>
        lastUserText(request) === "hog"
          ? { toolCalls: [{ name: "work__hog", args: { mbPerTick: 16 } }] }
          : { text: "fine" },
    });
    const submitted = orchestrator.submit({ input: "hog" });
    const pid = await waitForPid(orchestrator);
    // The rlimit is on the child itself, whichever mechanism holds the rest.
    expect(readFileSync(`/proc/${pid}/limits`, "utf8")).toMatch(/Max open files\s+200\s+200/);
    const outcome = await submitted.outcome;
    expect(outcome.status).toBe("error");
    expect(outcome.error?.code).toBe("E_LIMIT_MEMORY");
    expect(isAlive(pid)).toBe(false);
    expect(llm.requests.length).toBe(1);

    const next = await orchestrator.submit({ input: "are you there?" }).outcome;
    expect(next.status).toBe("ok");
    expect(next.response).toBe("fine");
    expect(orchestrator.processes()[0]?.pid).not.toBe(pid);
    console.info(`memory limit held by ${limitSupport().mechanism}`);
  }, 60_000);

  it("makes no further model call once a turn is past turnSeconds", async () => {
    const { llm, orchestrator } = await setup({
      limits: "{ turnSeconds: 1 }",
      respond: (request) =>
        toolResults(request).length < 5
          ? { toolCalls: [{ name: "work__step", args: {} }], delayMs: 400 }
          : { text: "done" },
    });
    const outcome = await orchestrator.submit({ input: "slow loop" }).outcome;
    expect(outcome.error?.code).toBe("E_LIMIT_TURN_TIME");
    // 400 ms a call: the fourth would start at 1200 ms at the earliest; without the limit there would be six.
    expect(llm.requests.length).toBeGreaterThanOrEqual(1);
    expect(llm.requests.length).toBeLessThanOrEqual(3);
  }, 60_000);
});

async function waitForPid(orchestrator: Orchestrator): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const pid = orchestrator.processes()[0]?.pid;
    if (typeof pid === "number") return pid;
    if (Date.now() > deadline) throw new Error("no agent process started");
    await Bun.sleep(20);
  }
}
