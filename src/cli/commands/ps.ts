/**
 * `goondan ps`: prints the process table of a running orchestrator through its HTTP API
 * (`GET /v1/processes`), with the bearer token from GOONDAN_API_TOKEN when set. On a node of a cluster: every
 * node's processes with a NODE column, and on stderr the nodes that did not answer.
 */
import { textTable } from "../../shared/text-table.ts";
import type { CliCommand } from "../command.ts";
import { EXIT } from "../command.ts";
import { SystemError } from "../../shared/errors.ts";
import type { ProcessInfo } from "../../supervision/process-table.ts";
import { unansweredNotice } from "../operator/api-client.ts";

export const command: CliCommand = {
  name: "ps",
  summary: "list the processes of a running orchestrator",
  usage: "goondan ps [--port N] [--host H] [--format text|json]",
  maxPositionals: 0,
  flags: {
    port: { type: "number", description: "HTTP API port of the orchestrator (default 8790)" },
    host: { type: "string", description: "HTTP API host (default 127.0.0.1)" },
    format: { type: "string", description: "output format (default text)", choices: ["text", "json"] },
  },
  async run({ flags, io }) {
    const host = typeof flags.host === "string" ? flags.host : "127.0.0.1";
    const port = typeof flags.port === "number" ? flags.port : 8790;
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}/v1/processes`;
    let response: Response;
    try {
      response = await fetch(url, {
        headers: io.env.GOONDAN_API_TOKEN ? { authorization: `Bearer ${io.env.GOONDAN_API_TOKEN}` } : {},
      });
    } catch (error) {
      throw new SystemError(
        "E_PS_UNREACHABLE",
        `no orchestrator answers at ${host}:${port} (${(error as Error).message})`,
        { suggestion: "start one with 'goondan run' or pass --port" },
      );
    }
    const body = (await response.json().catch(() => ({}))) as {
      processes?: ProcessInfo[];
      unanswered?: Array<{ node: string; status: string }>;
      error?: { code: string; message: string };
    };
    if (!response.ok || !body.processes) {
      io.stderr(`goondan ps: ${body.error?.code ?? response.status}: ${body.error?.message ?? response.statusText}\n`);
      return EXIT.failure;
    }
    const notice = unansweredNotice(body.unanswered ?? [], "their processes are");
    if (notice !== undefined) io.stderr(`goondan ps: ${notice}\n`);
    if (flags.format === "json") {
      io.stdout(`${JSON.stringify(body.processes, null, 2)}\n`);
      return EXIT.ok;
    }
    io.stdout(formatTable(body.processes));
    return EXIT.ok;
  },
};

export function formatTable(processes: readonly ProcessInfo[]): string {
  // A cluster's table says on which node each process runs.
  const clustered = processes.some((row) => row.node !== undefined);
  const header = [
    ...(clustered ? ["NODE"] : []),
    "KIND",
    "AGENT",
    "INSTANCE",
    "PID",
    "STATUS",
    "RESTARTS",
    "CRASHES",
    "QUEUED",
    "STARTED",
  ];
  const rows = processes.map((row) => [
    ...(clustered ? [row.node ?? "-"] : []),
    row.kind,
    row.agent,
    row.instanceKey,
    row.pid === null ? "-" : String(row.pid),
    row.status,
    String(row.restarts),
    String(row.consecutiveCrashes),
    String(row.queued ?? 0),
    row.startedAt ?? "-",
  ]);
  return textTable(header, rows);
}
