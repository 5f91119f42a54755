/**
 * Budgets with real agent children on the loopback LLM (docs/limits.md#budgets): a loop of model calls is stopped by
 * the agent's token budget before the call that would go past it, the turn answered with `E_BUDGET_EXCEEDED`; the
 * counter is per instance, durable across an orchestrator restart, and shown by the permit broker.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundleOrThrow } from "../../../src/config/load-bundle.ts";
import { Orchestrator } from "../../../src/orchestrator/orchestrator.ts";
import { bunProcessSpawner } from "../../../src/supervision/process-spawner.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { startLoopbackLlm } from "../../helpers/loopback-llm.ts";
import { writeLimitsBundle } from "../../fixtures/limits/limits-bundle.ts";
import { budgetTable } from "../../../src/cli/operator/budget-table.ts";
import { SwarmMetrics } from "../../../src/observability/swarm-metrics.ts";

const defer = useCleanups();
const childEnv = { LOOPBACK_API_KEY: "test-key", GOONDAN_LOG_LEVEL: "warn" };

describe("spec.budget", () => {
  it("stops a loop of model calls at the budget, per instance, durably across a restart", async () => {
    // Every answer calls a tool again (the loop never ends by itself) and costs 30 + 10 tokens.
    const llm = await startLoopbackLlm({
      fallback: {
        toolCalls: [{ name: "work__step", args: { n: 1 } }],
        usage: { promptTokens: 30, completionTokens: 10 },
      },
    });
    const dir = writeLimitsBundle({ endpoint: llm.url, agent: "budget: { tokens: 100, period: 30d }" });
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-budget-"));
    const bundle = await loadBundleOrThrow(dir);
    const start = () =>
      new Orchestrator({
        bundle,
        stateRoot,
        spawner: bunProcessSpawner({ output: "ignore" }),
        env: { ...process.env, ...childEnv },
      });
    let orchestrator = start();
    defer(async () => {
      await orchestrator.shutdown({ reason: "test over", gracePeriodMs: 1000 });
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });

    // 0, 40 and 80 tokens used are under 100: three calls go; at 120 the fourth is refused before it is made.
    const first = await orchestrator.submit({ input: "loop" }).outcome;
    expect(first.status).toBe("error");
    expect(first.error?.code).toBe("E_BUDGET_EXCEEDED");
    expect(llm.requests.length).toBe(3);

    const again = await orchestrator.submit({ input: "loop again" }).outcome;
    expect(again.error?.code).toBe("E_BUDGET_EXCEEDED");
    expect(llm.requests.length).toBe(3);

    // Another instance of the same agent has its own counter.
    const other = await orchestrator.submit({ input: "loop", instanceKey: "other" }).outcome;
    expect(other.error?.code).toBe("E_BUDGET_EXCEEDED");
    expect(llm.requests.length).toBe(6);

    const shown = await orchestrator.permits.budgets();
    expect(shown.map(({ scope, subject, tokens, limitTokens }) => ({ scope, subject, tokens, limitTokens }))).toEqual([
      { scope: "instance", subject: "looper/limits", tokens: 120, limitTokens: 100 },
      { scope: "instance", subject: "looper/other", tokens: 120, limitTokens: 100 },
    ]);

    // `goondan ps` prints them under the process table, and /metrics sums them by agent.
    const table = budgetTable(shown);
    expect(table).toContain("looper/other");
    expect(table).toContain("120/100 (120%)");
    const metrics = new SwarmMetrics({ processes: () => [], budgets: () => orchestrator.budgets() });
    const scraped = await metrics.registry.metrics();
    expect(scraped).toContain('goondan_budget_tokens_used{scope="instance",agent="looper",period="2592000s"} 240');
    expect(scraped).toContain('goondan_budget_exhausted{scope="instance",agent="looper",period="2592000s"} 2');

    // The counters are in the store: a restarted orchestrator refuses the call too.
    await orchestrator.shutdown({ reason: "restart", gracePeriodMs: 1000 });
    orchestrator = start();
    const afterRestart = await orchestrator.submit({ input: "loop after restart" }).outcome;
    expect(afterRestart.error?.code).toBe("E_BUDGET_EXCEEDED");
    expect(llm.requests.length).toBe(6);
  }, 60_000);
});
