/**
 * `goondan schedules [--format text|json]` lists the running swarm's schedules (`GET /v1/schedules`): each one's
 * cron or interval and time zone, its next fire time, its newest accepted tick and that tick's result, and the ticks
 * fired, missed and late since the daemon started. `goondan schedules run NAME` fires one tick of NAME now
 * (`POST /v1/schedules/:name/run`). Its flags are declared once, below, like every command's.
 */
import type { ScheduleRow } from "../../connector/schedule/schedule-runner.ts";
import { EXIT, type CliCommand } from "../command.ts";
import { API_FLAGS, apiError, apiTarget, callApi } from "../operator/api-client.ts";
import { textTable } from "../../shared/text-table.ts";

export const command: CliCommand = {
  name: "schedules",
  summary: "list the running swarm's schedules, or fire one now (schedules run NAME)",
  usage: "goondan schedules [run NAME] [--format text|json] [--port N] [--host HOST]",
  maxPositionals: 2,
  flags: {
    format: { type: "string", description: "output format (default text)", choices: ["text", "json"] },
    ...API_FLAGS,
  },
  async run({ flags, positionals, io }) {
    const target = apiTarget({ flags, env: io.env });
    const [verb, name] = positionals;
    const fail = (status: number, body: unknown) => {
      const error = apiError(body);
      io.stderr(`goondan schedules: HTTP ${status}${error ? ` ${error.code}: ${error.message}` : ""}\n`);
      return EXIT.failure;
    };
    if (verb !== undefined) {
      if (verb !== "run" || name === undefined) {
        io.stderr("goondan schedules: expected `goondan schedules` or `goondan schedules run NAME`\n");
        return EXIT.usage;
      }
      const path = `/v1/schedules/${encodeURIComponent(name)}/run`;
      const response = await callApi({ target, method: "POST", path });
      const eventId = (response.body as { eventId?: string } | undefined)?.eventId;
      if (response.status !== 202 || eventId === undefined) return fail(response.status, response.body);
      io.stdout(flags.format === "json" ? `${JSON.stringify({ eventId })}\n` : `fired ${name}: event ${eventId}\n`);
      return EXIT.ok;
    }
    const response = await callApi({ target, method: "GET", path: "/v1/schedules" });
    const rows = (response.body as { schedules?: ScheduleRow[] } | undefined)?.schedules;
    if (response.status !== 200 || rows === undefined) return fail(response.status, response.body);
    io.stdout(flags.format === "json" ? `${JSON.stringify(rows, null, 2)}\n` : formatSchedules(rows));
    return EXIT.ok;
  },
};

export function formatSchedules(rows: readonly ScheduleRow[]): string {
  if (rows.length === 0) return "no schedules: add a Connection of the schedule connector (docs/schedules.md)\n";
  return textTable(
    ["NAME", "WHEN", "TIMEZONE", "NEXT", "LAST TICK", "RESULT", "FIRED", "MISSED", "LATE"],
    rows.map((row) => [
      row.connection,
      row.cron ?? `every ${row.every ?? "?"}`,
      row.timezone,
      row.nextAt ?? "-",
      row.lastTickAt ?? "-",
      row.lastResult ?? "-",
      String(row.fired),
      String(row.missed),
      String(row.late),
    ]),
  );
}
