/**
 * `goondan approvals [--format text|json]`: lists the tool calls of a running orchestrator that wait for a person's
 * decision (`GET /v1/approvals`): id, agent/instance, tool, arguments, when asked and until when. Decide with
 * `goondan approve ID [--deny --reason R]`.
 */
import { EXIT, type CliCommand } from "../command.ts";
import { textTable } from "../../shared/text-table.ts";
import { API_FLAGS, apiError, apiTarget, callApi } from "../operator/api-client.ts";

export interface ApprovalListRow {
  id: string;
  agent: string;
  instanceKey: string;
  toolName: string;
  arguments: unknown;
  requestedAt: string;
  expiresAt?: string;
}

export const command: CliCommand = {
  name: "approvals",
  summary: "list the tool calls waiting for a person's approval in the running orchestrator",
  usage: "goondan approvals [--format text|json] [--port N] [--host HOST]",
  maxPositionals: 0,
  flags: {
    format: { type: "string", description: "output format (default text)", choices: ["text", "json"] },
    ...API_FLAGS,
  },
  async run({ flags, io }) {
    const response = await callApi({ target: apiTarget({ flags, env: io.env }), method: "GET", path: "/v1/approvals" });
    const rows = (response.body as { approvals?: ApprovalListRow[] } | undefined)?.approvals;
    if (response.status !== 200 || rows === undefined) {
      const error = apiError(response.body);
      io.stderr(`goondan approvals: HTTP ${response.status}${error ? ` ${error.code}: ${error.message}` : ""}\n`);
      return EXIT.failure;
    }
    io.stdout(flags.format === "json" ? `${JSON.stringify(rows, null, 2)}\n` : formatApprovals(rows));
    return EXIT.ok;
  },
};

export function formatApprovals(rows: readonly ApprovalListRow[]): string {
  if (rows.length === 0) return "no tool calls wait for approval\n";
  const header = ["ID", "AGENT", "INSTANCE", "TOOL", "REQUESTED", "EXPIRES", "ARGUMENTS"];
  const cells = rows.map((row) => [
    row.id,
    row.agent,
    row.instanceKey,
    row.toolName,
    row.requestedAt,
    row.expiresAt ?? "-",
    clip(JSON.stringify(row.arguments)),
  ]);
  return textTable(header, cells);
}

const clip = (text: string): string => (text.length > 80 ? `${text.slice(0, 79)}…` : text);
