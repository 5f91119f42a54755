/**
 * `goondan logs [--agent] [--instance] [--follow] [--state-root] [--format text|json]`: prints the
 * runtime events (turns, steps, tool calls) that instances recorded under the state root, oldest
 * first, one readable line each; `--follow` keeps printing new ones until Ctrl+C.
 */
import { existsSync, openSync, readSync, closeSync, statSync } from "node:fs";
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { EXIT, type CliCommand, type CliIo } from "../command.ts";
import { listInstancesOnDisk, type InstanceOnDisk } from "../operator/instances-on-disk.ts";

interface Filters {
  agent?: string;
  instance?: string;
}

/** One runtime event as a line: `time agent/instanceKey type key=value…`. */
export function formatRuntimeEvent(record: Record<string, unknown>): string {
  const parts = [String(record.at ?? "?"), `${String(record.agent ?? "?")}/${String(record.instanceKey ?? "?")}`, String(record.type ?? "?")];
  if (typeof record.turnId === "string") parts.push(`turn=${record.turnId}`);
  if (typeof record.stepIndex === "number") parts.push(`step=${record.stepIndex}`);
  if (typeof record.toolName === "string") parts.push(`tool=${record.toolName}`);
  const data = record.data as { extension?: unknown; hook?: unknown } | undefined;
  if (typeof data?.extension === "string") parts.push(`extension=${data.extension}${typeof data.hook === "string" ? ` hook=${data.hook}` : ""}`);
  if (typeof record.durationMs === "number") parts.push(`${Math.round(record.durationMs)}ms`);
  const usage = record.usage as { inputTokens?: number; outputTokens?: number } | undefined;
  if (usage && typeof usage.inputTokens === "number") parts.push(`tokens=${usage.inputTokens}/${usage.outputTokens ?? 0}`);
  const error = record.error as { code?: string; message?: string } | undefined;
  if (error?.code) parts.push(`error=${error.code}${error.message ? ` ${JSON.stringify(error.message)}` : ""}`);
  return parts.join(" ");
}

const selected = (instance: InstanceOnDisk, filters: Filters): boolean =>
  (filters.agent === undefined || instance.agent === filters.agent) && (filters.instance === undefined || instance.instanceKey === filters.instance);

/** Reads what was appended to `file` since `offset`; returns complete lines and the new offset. */
function readNew(file: string, offset: number): { lines: string[]; offset: number } {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return { lines: [], offset };
  }
  if (size < offset) offset = 0; // truncated or replaced
  if (size === offset) return { lines: [], offset };
  const buffer = Buffer.alloc(size - offset);
  const fd = openSync(file, "r");
  try {
    readSync(fd, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(fd);
  }
  const text = buffer.toString("utf8");
  const end = text.lastIndexOf("\n");
  if (end < 0) return { lines: [], offset };
  return { lines: text.slice(0, end).split("\n").filter((line) => line.trim() !== ""), offset: offset + Buffer.byteLength(text.slice(0, end + 1)) };
}

function render(lines: string[], format: string, io: CliIo): void {
  const records: Record<string, unknown>[] = [];
  for (const line of lines) {
    try {
      records.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a torn line from a crash: skip it
    }
  }
  records.sort((a, b) => String(a.at ?? "").localeCompare(String(b.at ?? "")));
  for (const record of records) io.stdout(`${format === "json" ? JSON.stringify(record) : formatRuntimeEvent(record)}\n`);
}

export const command: CliCommand = {
  name: "logs",
  summary: "print the runtime events (turns, steps, tool calls) recorded under the state root",
  usage: "goondan logs [--agent NAME] [--instance KEY] [--follow] [--state-root DIR] [--format text|json]",
  maxPositionals: 0,
  flags: {
    agent: { type: "string", description: "only this agent's instances" },
    instance: { type: "string", description: "only instances with this instanceKey" },
    follow: { type: "boolean", description: "keep printing new events until Ctrl+C" },
    "state-root": { type: "string", description: "state root (default GOONDAN_STATE_ROOT or ~/.goondan)" },
    format: { type: "string", description: "text (default) or json lines", choices: ["text", "json"] },
  },
  async run({ flags, io }) {
    const stateRoot = typeof flags["state-root"] === "string" ? flags["state-root"] : defaultStateRoot(io.env);
    const filters: Filters = {
      ...(typeof flags.agent === "string" ? { agent: flags.agent } : {}),
      ...(typeof flags.instance === "string" ? { instance: flags.instance } : {}),
    };
    const format = typeof flags.format === "string" ? flags.format : "text";
    const offsets = new Map<string, number>();
    const poll = (): string[] => {
      const lines: string[] = [];
      for (const instance of listInstancesOnDisk({ stateRoot }).filter((candidate) => selected(candidate, filters))) {
        if (!existsSync(instance.runtimeEvents)) continue;
        const read = readNew(instance.runtimeEvents, offsets.get(instance.runtimeEvents) ?? 0);
        offsets.set(instance.runtimeEvents, read.offset);
        lines.push(...read.lines);
      }
      return lines;
    };
    const first = poll();
    render(first, format, io);
    if (!flags.follow) {
      if (first.length === 0) io.stderr(`no runtime events${filters.agent ? ` for agent ${filters.agent}` : ""}${filters.instance ? ` instance ${filters.instance}` : ""} under ${stateRoot}\n`);
      return EXIT.ok;
    }
    return new Promise<number>((resolve) => {
      const timer = setInterval(() => render(poll(), format, io), 250);
      const stop = (code: number) => () => {
        clearInterval(timer);
        process.off("SIGINT", onInterrupt);
        process.off("SIGTERM", onTerminate);
        resolve(code);
      };
      const onInterrupt = stop(EXIT.interrupted);
      const onTerminate = stop(EXIT.ok);
      process.on("SIGINT", onInterrupt);
      process.on("SIGTERM", onTerminate);
    });
  },
};
