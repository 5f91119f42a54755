/**
 * The swarm's Prometheus metrics (`GET /metrics`), kept in one prom-client registry of its own (never the global
 * one): counters and histograms fed from the runtime events the orchestrator's hub sees (turns, steps, tool calls
 * by status, model calls, tokens and durations), and gauges read from the process table when scraped (restarts,
 * inbox depth, processes by status), and the schedules' ticks fired, missed and late. Labels are the agent, tool, provider, model and Connection names the bundle declares,
 * never instance keys, so the series stay bounded however many instances run.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import { registerBudgetGauges, type MetricsBudgetRow } from "./budget-metrics.ts";

/** The part of a process-table row the gauges read (supervision/process-table.ts ProcessInfo fits). */
export interface MetricsProcessRow {
  kind: string;
  agent: string;
  status: string;
  restarts: number;
  queued: number;
  pid: number | null;
}

const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export class SwarmMetrics {
  readonly registry = new Registry();
  private readonly turns: Counter<"agent" | "status">;
  private readonly steps: Counter<"agent" | "status">;
  private readonly toolCalls: Counter<"agent" | "tool" | "status">;
  private readonly modelCalls: Counter<"agent" | "provider" | "model" | "status">;
  private readonly tokens: Counter<"agent" | "provider" | "model" | "direction">;
  private readonly turnSeconds: Histogram<"agent" | "status">;
  private readonly modelSeconds: Histogram<"agent" | "provider" | "model">;
  private readonly ticks: Record<"fired" | "missed" | "late", Counter<"connection">>;

  constructor(options: {
    processes: () => readonly MetricsProcessRow[];
    /** The budgets in their current window (budget-metrics.ts); default none. */
    budgets?: () => Promise<readonly MetricsBudgetRow[]>;
    /** fsyncs of the state store's log so far (Store.syncs); default none shown. */
    storeSyncs?: () => number | undefined;
  }) {
    const registers = [this.registry];
    if (options.budgets !== undefined) registerBudgetGauges(this.registry, options.budgets);
    this.turns = new Counter({
      name: "goondan_turns_total",
      help: "Turns ended, by agent and status (ok or error).",
      labelNames: ["agent", "status"],
      registers,
    });
    this.steps = new Counter({
      name: "goondan_steps_total",
      help: "Steps ended, by agent and status (ok or error).",
      labelNames: ["agent", "status"],
      registers,
    });
    this.toolCalls = new Counter({
      name: "goondan_tool_calls_total",
      help: "Tool calls ended, by agent, tool and status (ok or error).",
      labelNames: ["agent", "tool", "status"],
      registers,
    });
    this.modelCalls = new Counter({
      name: "goondan_model_calls_total",
      help: "Model calls ended, by agent, provider, model and status (ok or error).",
      labelNames: ["agent", "provider", "model", "status"],
      registers,
    });
    this.tokens = new Counter({
      name: "goondan_model_tokens_total",
      help: "Model tokens, by agent, provider, model and direction (input or output).",
      labelNames: ["agent", "provider", "model", "direction"],
      registers,
    });
    this.turnSeconds = new Histogram({
      name: "goondan_turn_duration_seconds",
      help: "Turn durations, by agent and status.",
      labelNames: ["agent", "status"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.modelSeconds = new Histogram({
      name: "goondan_model_call_duration_seconds",
      help: "Model call durations, by agent, provider and model.",
      labelNames: ["agent", "provider", "model"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    const tickCounter = (what: string, help: string) =>
      new Counter({ name: `goondan_schedule_ticks_${what}_total`, help, labelNames: ["connection"], registers });
    this.ticks = {
      fired: tickCounter("fired", "Schedule ticks accepted as events, by Connection (late ones included)."),
      missed: tickCounter("missed", "Schedule ticks skipped (catch-up left them out, or no ingress rule took them)."),
      late: tickCounter(
        "late",
        "Schedule ticks caught up after a stop, or accepted more than a second after their due time.",
      ),
    };
    const rows = options.processes;
    const storeSyncs = options.storeSyncs;
    if (storeSyncs !== undefined)
      new Counter({
        name: "goondan_store_syncs_total",
        help: "fsyncs of the embedded state store's log: what every durable answer waits on.",
        registers,
        collect() {
          this.reset();
          this.inc(storeSyncs() ?? 0);
        },
      });
    new Gauge({
      name: "goondan_process_restarts",
      help: "Restarts of the live processes (agents and connectors), summed by kind and agent.",
      labelNames: ["kind", "agent"],
      registers,
      collect() {
        this.reset();
        for (const row of rows()) this.inc({ kind: row.kind, agent: row.agent }, row.restarts);
      },
    });
    new Gauge({
      name: "goondan_inbox_depth",
      help: "Events queued or in flight in the inboxes of the live agent instances, summed by agent.",
      labelNames: ["agent"],
      registers,
      collect() {
        this.reset();
        for (const row of rows()) if (row.kind === "agent") this.inc({ agent: row.agent }, row.queued);
      },
    });
    new Gauge({
      name: "goondan_instances",
      help: "Agent instances with a child (and connectors), by kind, agent and supervision status.",
      labelNames: ["kind", "agent", "status"],
      registers,
      collect() {
        this.reset();
        for (const row of rows()) this.inc({ kind: row.kind, agent: row.agent, status: row.status });
      },
    });
    new Gauge({
      name: "goondan_processes",
      help: "Live processes by kind and agent (a shared agent process counts once, however many instances it holds).",
      labelNames: ["kind", "agent"],
      registers,
      collect() {
        this.reset();
        for (const [key, pids] of pidsBy(rows(), (row) => `${row.kind}\u0000${row.agent}`)) {
          const [kind, agent] = key.split("\u0000") as [string, string];
          this.set({ kind, agent }, pids.size);
        }
      },
    });
    new Gauge({
      name: "goondan_process_instances",
      help: "Agent instances each live agent process holds, by agent and pid.",
      labelNames: ["agent", "pid"],
      registers,
      collect() {
        this.reset();
        for (const row of rows())
          if (row.kind === "agent" && row.pid !== null) this.inc({ agent: row.agent, pid: String(row.pid) });
      },
    });
  }

  /** Counts a batch of runtime events (RuntimeEventHub subscriber). */
  observe(events: readonly RuntimeEvent[]): void {
    for (const event of events) this.observeOne(event);
  }

  /** Counts what a schedule's tick came to (src/connector/schedule/schedule-runner.ts TickReport fits). */
  observeTick(
    report:
      | { connection: string; type: "fired"; late: boolean }
      | { connection: string; type: "missed"; count: number },
  ): void {
    const labels = { connection: report.connection };
    if (report.type === "missed") return void this.ticks.missed.inc(labels, report.count);
    this.ticks.fired.inc(labels);
    if (report.late) this.ticks.late.inc(labels);
  }

  /** The exposition, in Prometheus text format, and its content type. */
  async render(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  private observeOne(event: RuntimeEvent): void {
    const agent = event.agent;
    const seconds = (event.durationMs ?? 0) / 1000;
    switch (event.type) {
      case "turn.completed":
      case "turn.failed": {
        const status = event.type === "turn.completed" ? "ok" : "error";
        this.turns.inc({ agent, status });
        if (event.durationMs !== undefined) this.turnSeconds.observe({ agent, status }, seconds);
        return;
      }
      case "step.completed":
      case "step.failed":
        this.steps.inc({ agent, status: event.type === "step.completed" ? "ok" : "error" });
        return;
      case "tool.completed":
      case "tool.failed":
        this.toolCalls.inc({
          agent,
          tool: event.toolName ?? "unknown",
          status: event.type === "tool.completed" ? "ok" : "error",
        });
        return;
      case "model.completed":
      case "model.failed": {
        const provider = stringField(event, "provider");
        const model = stringField(event, "model");
        this.modelCalls.inc({ agent, provider, model, status: event.type === "model.completed" ? "ok" : "error" });
        if (event.durationMs !== undefined) this.modelSeconds.observe({ agent, provider, model }, seconds);
        if (event.usage) {
          this.tokens.inc({ agent, provider, model, direction: "input" }, event.usage.inputTokens);
          this.tokens.inc({ agent, provider, model, direction: "output" }, event.usage.outputTokens);
        }
        return;
      }
      default:
        return;
    }
  }
}

function stringField(event: RuntimeEvent, name: string): string {
  const value = event.data?.[name];
  return typeof value === "string" ? value : "unknown";
}

/** The distinct live pids of the rows, by a key of each row. */
function pidsBy(rows: readonly MetricsProcessRow[], key: (row: MetricsProcessRow) => string): Map<string, Set<number>> {
  const groups = new Map<string, Set<number>>();
  for (const row of rows) {
    if (row.pid === null) continue;
    const pids = groups.get(key(row)) ?? new Set<number>();
    pids.add(row.pid);
    groups.set(key(row), pids);
  }
  return groups;
}
