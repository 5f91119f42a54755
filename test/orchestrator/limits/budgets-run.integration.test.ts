/**
 * A budget on a real `goondan run` (docs/limits.md#budgets): an event whose turn runs out of budget is answered over
 * HTTP with `E_BUDGET_EXCEEDED`, and the operator sees the budget in `goondan ps` and in `GET /metrics`.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killChild, useCleanups } from "../../helpers/cleanups.ts";
import { GOONDAN_BIN, runToExit, startGoondanRun } from "../../helpers/goondan-process.ts";
import { startLoopbackLlm } from "../../helpers/loopback-llm.ts";
import { writeLimitsBundle } from "../../fixtures/limits/limits-bundle.ts";

const defer = useCleanups();

describe("spec.budget on goondan run", () => {
  it("answers the event E_BUDGET_EXCEEDED and shows the budget in ps and /metrics", async () => {
    const llm = await startLoopbackLlm({
      fallback: { toolCalls: [{ name: "work__step", args: {} }], usage: { promptTokens: 30, completionTokens: 10 } },
    });
    const dir = writeLimitsBundle({ endpoint: llm.url, swarm: "budget: { tokens: 100, costUsd: 10, period: 30d }" });
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-budget-run-"));
    defer(async () => {
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });
    const env = { LOOPBACK_API_KEY: "test-key", GOONDAN_LOG_LEVEL: "info" };
    const run = await startGoondanRun({
      args: [dir, "--port", "0", "--state-root", stateRoot],
      env,
      onSpawn: (proc) => defer(killChild(proc)),
    });

    const reply = await fetch(`${run.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "loop", wait: true }),
    });
    const body = (await reply.json()) as { status?: string; error?: { code: string } };
    expect(body.error?.code).toBe("E_BUDGET_EXCEEDED");
    expect(llm.requests.length).toBe(3);
    // 3 calls of 30 tokens in at $1000/M and 10 out at $2000/M: $0.15 (a 30d window, so no test meets its end).

    const ps = await runToExit({
      argv: [process.execPath, GOONDAN_BIN, "ps", "--port", String(run.port)],
      env: { ...process.env, ...env },
    });
    expect(ps.code).toBe(0);
    expect(ps.stdout).toMatch(/^BUDGET +FOR +PERIOD +TOKENS +COST +RENEWS/m);
    expect(ps.stdout).toMatch(/^swarm +limits +30d +120\/100 \(120%\) +\$0\.1500\/\$10\.0000 \(2%\)/m);

    const metrics = await (await fetch(`${run.base}/metrics`)).text();
    expect(metrics).toContain('goondan_budget_exhausted{scope="swarm",agent="",period="2592000s"} 1');
    expect(metrics).toContain('goondan_budget_tokens_used{scope="swarm",agent="",period="2592000s"} 120');
  }, 60_000);
});
