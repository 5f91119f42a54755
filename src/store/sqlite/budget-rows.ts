/**
 * The embedded store's budget counters (docs/limits.md#budgets): one row per (swarm, scope, subject, period,
 * window) with the tokens and US dollars counted in it. The table is created here at open (idempotent), so a state
 * root written before budgets existed gains it without a schema version of its own. Writes go through the store's
 * WriteBatch like every other write, so a counter becomes durable with the turn that spent it.
 */
import type { Database } from "bun:sqlite";
import type { BudgetCounter, BudgetCounterKey, BudgetCounters, BudgetUsage } from "../store.ts";
import type { WriteBatch } from "./write-batch.ts";

const TABLE = `
CREATE TABLE IF NOT EXISTS budget_usage (
  swarm TEXT NOT NULL,
  scope TEXT NOT NULL,
  subject TEXT NOT NULL,
  period_ms INTEGER NOT NULL,
  window_start INTEGER NOT NULL,
  tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (swarm, scope, subject, period_ms, window_start)
) WITHOUT ROWID;
`;

interface Row {
  swarm: string;
  scope: BudgetCounter["scope"];
  subject: string;
  period_ms: number;
  window_start: number;
  tokens: number;
  cost_usd: number;
}

const params = (key: BudgetCounterKey) => ({
  swarm: key.swarm,
  scope: key.scope,
  subject: key.subject,
  period: key.periodMs,
  start: key.windowStart,
});

export class SqliteBudgetCounters implements BudgetCounters {
  constructor(
    private readonly db: Database,
    private readonly batch: WriteBatch,
  ) {
    db.exec(TABLE);
  }

  async usage(key: BudgetCounterKey): Promise<BudgetUsage> {
    const row = this.db
      .query(
        "SELECT tokens, cost_usd FROM budget_usage WHERE swarm = :swarm AND scope = :scope AND subject = :subject AND period_ms = :period AND window_start = :start",
      )
      .get(params(key)) as Pick<Row, "tokens" | "cost_usd"> | null;
    return { tokens: row?.tokens ?? 0, costUsd: row?.cost_usd ?? 0 };
  }

  /**
   * Not synced on its own (`sync: false`): the log is ordered, so the turn's commit that follows makes it durable with
   * it; a machine crash before that loses the count of a call whose turn is redone anyway.
   */
  add(key: BudgetCounterKey, usage: BudgetUsage): Promise<void> {
    return this.batch.durable(
      () =>
        this.db
          .query(
            `INSERT INTO budget_usage (swarm, scope, subject, period_ms, window_start, tokens, cost_usd)
           VALUES (:swarm, :scope, :subject, :period, :start, :tokens, :cost)
           ON CONFLICT (swarm, scope, subject, period_ms, window_start)
           DO UPDATE SET tokens = tokens + excluded.tokens, cost_usd = cost_usd + excluded.cost_usd`,
          )
          .run({ ...params(key), tokens: usage.tokens, cost: usage.costUsd }),
      { sync: false },
    );
  }

  async list(options: { swarm?: string; activeAt: number }): Promise<BudgetCounter[]> {
    const rows = this.db
      .query(
        `SELECT * FROM budget_usage WHERE window_start + period_ms > :at AND (:swarm IS NULL OR swarm = :swarm)
         ORDER BY swarm, scope, subject, period_ms`,
      )
      .all({ at: options.activeAt, swarm: options.swarm ?? null }) as Row[];
    return rows.map((row) => ({
      swarm: row.swarm,
      scope: row.scope,
      subject: row.subject,
      periodMs: row.period_ms,
      windowStart: row.window_start,
      tokens: row.tokens,
      costUsd: row.cost_usd,
    }));
  }
}
