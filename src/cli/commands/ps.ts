/**
 * `goondan ps`: prints the process table of a running orchestrator through its HTTP API
 * (`GET /v1/processes`) and, under it, the budgets in their current window, with the bearer token from GOONDAN_API_TOKEN when set. On a node of a cluster: every
 * node's processes with a NODE column, and on stderr the nodes that did not answer.
 */
import { textTable } from "../../shared/text-table.ts";
import type { CliCommand, CliIo } from "../command.ts";
import { EXIT } from "../command.ts";
import { SystemError } from "../../shared/errors.ts";
import type { ProcessInfo } from "../../supervision/process-table.ts";
import { API_FLAGS, apiTarget, unansweredNotice } from "../operator/api-client.ts";
import { formatAge, processUsage, type ProcessUsage } from "../operator/process-usage.ts";
import { budgetTable } from "../operator/budget-table.ts";
import type { BudgetStatus } from "../../orchestrator/limits/budget-ledger.ts";

export const command: CliCommand = {
  name: "ps",
  summary: "list the processes of a running orchestrator",
  usage: "goondan ps [-w [--interval S]] [--port N] [--host H] [--format text|json | --json]",
  maxPositionals: 0,
  flags: {
    ...API_FLAGS,
    format: { type: "string", description: "output format (default text)", choices: ["text", "json"] },
    json: { type: "boolean", description: "the same as --format json" },
    watch: { type: "boolean", short: "w", description: "print the table again every --interval seconds until Ctrl-C" },
    interval: { type: "number", description: "with --watch: seconds between tables (default 2)" },
  },
  async run({ flags, io }) {
    if (flags.watch !== true) return printOnce(flags, io);
    // -w: the table again every `--interval` seconds until Ctrl-C (exit 130), or until the API stops answering.
    let stopped = false;
    const stop = () => {
      stopped = true;
    };
    process.once("SIGINT", stop);
    try {
      for (;;) {
        const code = await printOnce(flags, io);
        if (code !== EXIT.ok) return code;
        const until = Date.now() + Math.max(0.2, typeof flags.interval === "number" ? flags.interval : 2) * 1000;
        while (!stopped && Date.now() < until) await Bun.sleep(50);
        if (stopped) return EXIT.interrupted;
        io.stdout("\n");
      }
    } finally {
      process.off("SIGINT", stop);
    }
  },
};

async function printOnce(flags: Record<string, string | boolean | number | undefined>, io: CliIo): Promise<number> {
  const target = apiTarget({ flags, env: io.env });
  let response: Response;
  try {
    response = await fetch(`${target.baseUrl}/v1/processes`, {
      headers: target.token ? { authorization: `Bearer ${target.token}` } : {},
    });
  } catch (error) {
    throw new SystemError(
      "E_PS_UNREACHABLE",
      `no orchestrator answers at ${target.baseUrl.replace(/^http:\/\//, "")} (${(error as Error).message})`,
      { suggestion: "start one with 'goondan run' or pass --port" },
    );
  }
  const body = (await response.json().catch(() => ({}))) as {
    processes?: ProcessInfo[];
    budgets?: BudgetStatus[];
    unanswered?: Array<{ node: string; status: string }>;
    error?: { code: string; message: string };
  };
  if (!response.ok || !body.processes) {
    io.stderr(`goondan ps: ${body.error?.code ?? response.status}: ${body.error?.message ?? response.statusText}\n`);
    return EXIT.failure;
  }
  const notice = unansweredNotice(body.unanswered ?? [], "their processes are");
  if (notice !== undefined) io.stderr(`goondan ps: ${notice}\n`);
  if (flags.format === "json" || flags.json === true) io.stdout(`${JSON.stringify(body.processes, null, 2)}\n`);
  else {
    io.stdout(processTable(body.processes, { now: Date.now() }));
    // The budgets in their current window, when the swarm has any (docs/limits.md#budgets).
    const budgets = budgetTable(body.budgets ?? []);
    if (budgets !== "") io.stdout(`\n${budgets}`);
  }
  return EXIT.ok;
}

/**
 * The text table: NODE on a cluster, then the row's fields (INSTANCES: how many instances the row's process holds,
 * more than 1 where an agent's instances share a process), AGE since the child became ready, and CPU (percent of
 * one core over its life) and MEM (resident) read from this host's /proc (`-` on a cluster, whose rows may be
 * another host's pids).
 */
export function processTable(
  processes: readonly ProcessInfo[],
  options: { now: number; usage?: (pid: number) => ProcessUsage | undefined },
): string {
  const usageOf = options.usage ?? processUsage;
  // A cluster's table says on which node each process runs.
  const clustered = processes.some((row) => row.node !== undefined);
  const header = [
    ...(clustered ? ["NODE"] : []),
    "KIND",
    "AGENT",
    "INSTANCE",
    "PID",
    "INSTANCES",
    "STATUS",
    "CPU",
    "MEM",
    "AGE",
    "RESTARTS",
    "CRASHES",
    "QUEUED",
    "STARTED",
  ];
  const rows = processes.map((row) => {
    const usage = row.pid === null || clustered ? undefined : usageOf(row.pid);
    return [
      ...(clustered ? [row.node ?? "-"] : []),
      row.kind,
      row.agent,
      row.instanceKey,
      row.pid === null ? "-" : String(row.pid),
      row.processInstances === undefined ? "-" : String(row.processInstances),
      row.status,
      usage === undefined ? "-" : `${usage.cpuPercent.toFixed(1)}%`,
      usage === undefined ? "-" : `${(usage.rssBytes / 1024 / 1024).toFixed(1)}M`,
      row.startedAt === null ? "-" : formatAge(row.startedAt, options.now),
      String(row.restarts),
      String(row.consecutiveCrashes),
      String(row.queued ?? 0),
      row.startedAt ?? "-",
    ];
  });
  return textTable(header, rows);
}
