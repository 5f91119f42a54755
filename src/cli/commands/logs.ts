/**
 * `goondan logs [--agent] [--instance] [--follow] [--state-root] [--format text|json]`: prints the
 * runtime events (turns, steps, tool calls) the state root's store holds, oldest first, one readable line each
 * (read from the store, indexed by instance); `--follow` keeps printing new ones until Ctrl+C.
 */
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { EXIT, type CliCommand, type CliIo } from "../command.ts";
import { openStateRootStore } from "../operator/state-root-store.ts";

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

function render(events: readonly Record<string, unknown>[], format: string, io: CliIo): void {
  for (const record of events) io.stdout(`${format === "json" ? JSON.stringify(record) : formatRuntimeEvent(record)}\n`);
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
    let store = openStateRootStore(stateRoot);
    let cursor = 0;
    const poll = async (): Promise<Record<string, unknown>[]> => {
      store ??= openStateRootStore(stateRoot);
      const rows = (await store?.runtimeEvents({ after: cursor, ...(filters.agent ? { agent: filters.agent } : {}), ...(filters.instance ? { instanceKey: filters.instance } : {}) })) ?? [];
      cursor = rows.at(-1)?.cursor ?? cursor;
      return rows.map((row) => row.event as unknown as Record<string, unknown>);
    };
    // Oldest first across instances: each instance's events arrive in order, but two children's batches may not.
    const first = (await poll()).sort((a, b) => String(a.at ?? "").localeCompare(String(b.at ?? "")));
    render(first, format, io);
    if (!flags.follow) {
      void store?.close();
      if (first.length === 0) io.stderr(`no runtime events${filters.agent ? ` for agent ${filters.agent}` : ""}${filters.instance ? ` instance ${filters.instance}` : ""} under ${stateRoot}\n`);
      return EXIT.ok;
    }
    return new Promise<number>((resolve) => {
      let polling = false;
      const timer = setInterval(() => {
        if (polling) return;
        polling = true;
        void poll()
          .then((events) => render(events, format, io))
          .finally(() => (polling = false));
      }, 250);
      const stop = (code: number) => () => {
        clearInterval(timer);
        void store?.close();
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
