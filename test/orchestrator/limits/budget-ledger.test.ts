/**
 * The budget ledger alone (docs/limits.md#budgets), on the embedded store's counters and a manual clock: the
 * Swarm's budget counts every agent's calls and its cost at the Model's prices, windows renew with the period, and
 * a bundle with a budget is refused on a store without counters and when a cost cannot be priced.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundleOrThrow } from "../../../src/config/load-bundle.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { BudgetLedger } from "../../../src/orchestrator/limits/budget-ledger.ts";
import { SqliteStore } from "../../../src/store/sqlite/sqlite-store.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";
import { writeLimitsBundle } from "../../fixtures/limits/limits-bundle.ts";

const defer = useCleanups();
const caller = { swarm: "limits", agent: "looper", instanceKey: "one" };

async function bundleWith(options: Parameters<typeof writeLimitsBundle>[0]) {
  const dir = writeLimitsBundle(options);
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return loadBundleOrThrow(dir);
}

function store(): SqliteStore {
  const dir = mkdtempSync(join(tmpdir(), "goondan-ledger-"));
  const opened = new SqliteStore(join(dir, "goondan.db"));
  defer(async () => {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return opened;
}

const code = async (run: () => unknown): Promise<string | undefined> => {
  try {
    await run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe("BudgetLedger", () => {
  it("counts cost at the Model's prices against the Swarm's budget, and renews it with the next window", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 10, 0, 0));
    const ledger = new BudgetLedger({ counters: store().budgets, clock, logger: silentLogger() });
    // $1000 / M input, $2000 / M output: 100 in + 50 out = $0.2.
    ledger.configure(
      await bundleWith({ endpoint: "http://127.0.0.1:9", swarm: "budget: { costUsd: 0.3, period: 1h }" }),
    );
    await ledger.check(caller);
    await ledger.record(caller, { inputTokens: 100, outputTokens: 50 });
    await ledger.check({ ...caller, instanceKey: "two" });
    await ledger.record({ ...caller, instanceKey: "two" }, { inputTokens: 100, outputTokens: 50 });
    expect(await code(() => ledger.check({ ...caller, instanceKey: "three" }))).toBe("E_BUDGET_EXCEEDED");
    const [status] = await ledger.status("limits");
    expect(status?.scope).toBe("swarm");
    expect(status?.costUsd).toBeCloseTo(0.4, 6);
    clock.advance(3_600_000);
    expect(await code(() => ledger.check(caller))).toBeUndefined();
  });

  it("refuses a bundle with a budget on a store without budget counters (the NATS backend)", async () => {
    const ledger = new BudgetLedger({ counters: undefined, clock: new ManualClock(), logger: silentLogger() });
    const bundle = await bundleWith({ endpoint: "http://127.0.0.1:9", agent: "budget: { tokens: 10, period: 1d }" });
    expect(await code(() => ledger.configure(bundle))).toBe("E_CONFIG_BUDGET_UNSUPPORTED");
    ledger.configure(await bundleWith({ endpoint: "http://127.0.0.1:9" }));
    expect(ledger.applies("looper")).toBe(false);
  });

  it("refuses a cost budget on a Model whose prices are unknown", async () => {
    const ledger = new BudgetLedger({ counters: store().budgets, clock: new ManualClock(), logger: silentLogger() });
    const bundle = await bundleWith({
      endpoint: "http://127.0.0.1:9",
      priced: false,
      agent: "budget: { costUsd: 1, period: 30d, per: agent }",
    });
    expect(await code(() => ledger.configure(bundle))).toBe("E_CONFIG_BUDGET_PRICE_UNKNOWN");
  });
});
