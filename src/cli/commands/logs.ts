/**
 * `goondan logs [--agent] [--instance] [--turn] [--trace] [--follow] [--state-root | --port/--host] [--format
 * text|json]`: prints the runtime events (turns, steps, tool calls), oldest first, one readable line each;
 * `--follow` keeps printing new ones until Ctrl+C. By default it reads the state root's store (indexed by
 * instance); with `--port` or `--host` it reads a running orchestrator's API instead (`GET /v1/runtime-events`),
 * which on a node of a cluster is every node's events, each line naming its node, and says on stderr which nodes
 * did not answer.
 */
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { EXIT, type CliCommand, type CliIo } from "../command.ts";
import { API_FLAGS, apiTarget, unansweredNotice } from "../operator/api-client.ts";
import { apiRuntimeEvents, type ApiEventFilters } from "../operator/api-runtime-events.ts";
import { openStateRootStore } from "../operator/state-root-store.ts";

/** One runtime event as a line: `time [node] agent/instanceKey type key=value…` (the node on a cluster). */
export function formatRuntimeEvent(record: Record<string, unknown>): string {
  const parts = [
    String(record.at ?? "?"),
    ...(typeof record.node === "string" ? [record.node] : []),
    `${String(record.agent ?? "?")}/${String(record.instanceKey ?? "?")}`,
    String(record.type ?? "?"),
  ];
  if (typeof record.turnId === "string") parts.push(`turn=${record.turnId}`);
  if (typeof record.stepIndex === "number") parts.push(`step=${record.stepIndex}`);
  if (typeof record.toolName === "string") parts.push(`tool=${record.toolName}`);
  const data = record.data as { extension?: unknown; hook?: unknown } | undefined;
  if (typeof data?.extension === "string")
    parts.push(`extension=${data.extension}${typeof data.hook === "string" ? ` hook=${data.hook}` : ""}`);
  if (typeof record.durationMs === "number") parts.push(`${Math.round(record.durationMs)}ms`);
  const usage = record.usage as { inputTokens?: number; outputTokens?: number } | undefined;
  if (usage && typeof usage.inputTokens === "number")
    parts.push(`tokens=${usage.inputTokens}/${usage.outputTokens ?? 0}`);
  const error = record.error as { code?: string; message?: string } | undefined;
  if (error?.code) parts.push(`error=${error.code}${error.message ? ` ${JSON.stringify(error.message)}` : ""}`);
  return parts.join(" ");
}

function render(events: readonly Record<string, unknown>[], format: string, io: CliIo): void {
  for (const record of events)
    io.stdout(`${format === "json" ? JSON.stringify(record) : formatRuntimeEvent(record)}\n`);
}

export const command: CliCommand = {
  name: "logs",
  summary: "print the runtime events (turns, steps, tool calls) recorded under the state root",
  usage:
    "goondan logs [--agent NAME] [--instance KEY] [--turn ID] [--trace ID] [--follow] [--state-root DIR | --port N --host H] [--format text|json]",
  maxPositionals: 0,
  flags: {
    agent: { type: "string", short: "a", description: "only this agent's instances" },
    instance: { type: "string", short: "i", description: "only instances with this instanceKey" },
    turn: { type: "string", description: "only this turn's events" },
    trace: { type: "string", description: "only events of this trace id" },
    follow: { type: "boolean", description: "keep printing new events until Ctrl+C" },
    "state-root": { type: "string", description: "state root (default GOONDAN_STATE_ROOT or ~/.goondan)" },
    format: { type: "string", description: "text (default) or json lines", choices: ["text", "json"] },
    host: {
      ...(API_FLAGS.host as NonNullable<typeof API_FLAGS.host>),
      description: "read through the HTTP API at this host (a cluster node: every node's events)",
    },
    port: {
      ...(API_FLAGS.port as NonNullable<typeof API_FLAGS.port>),
      description: "read through the HTTP API on this port (a cluster node: every node's events)",
    },
  },
  async run({ flags, io }) {
    const filters: ApiEventFilters = {
      ...(typeof flags.agent === "string" ? { agent: flags.agent } : {}),
      ...(typeof flags.instance === "string" ? { instanceKey: flags.instance } : {}),
      ...(typeof flags.turn === "string" ? { turnId: flags.turn } : {}),
      ...(typeof flags.trace === "string" ? { traceId: flags.trace } : {}),
    };
    const format = typeof flags.format === "string" ? flags.format : "text";
    const throughApi = flags.port !== undefined || flags.host !== undefined;
    const source = throughApi
      ? apiSource({ flags, io, filters })
      : storeSource(typeof flags["state-root"] === "string" ? flags["state-root"] : defaultStateRoot(io.env), filters);
    const poll = source.poll;
    // Oldest first across instances: each instance's events arrive in order, but two children's batches may not.
    const first = (await poll()).sort((a, b) => String(a.at ?? "").localeCompare(String(b.at ?? "")));
    render(first, format, io);
    if (!flags.follow) {
      source.close();
      if (first.length === 0)
        io.stderr(
          `no runtime events${filters.agent ? ` for agent ${filters.agent}` : ""}${filters.instanceKey ? ` instance ${filters.instanceKey}` : ""} ${source.where}\n`,
        );
      return EXIT.ok;
    }
    return new Promise<number>((resolve) => {
      let polling = false;
      const timer = setInterval(() => {
        if (polling) return;
        polling = true;
        void poll()
          .then((events) => render(events, format, io))
          .catch((error: unknown) =>
            io.stderr(`goondan logs: ${error instanceof Error ? error.message : String(error)}; trying again\n`),
          )
          .finally(() => (polling = false));
      }, 250);
      const stop = (code: number) => () => {
        clearInterval(timer);
        source.close();
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

interface EventSource {
  /** The events after the last poll. */
  poll(): Promise<Record<string, unknown>[]>;
  close(): void;
  /** Where it reads, for the "nothing found" line. */
  where: string;
}

function storeSource(stateRoot: string, filters: ApiEventFilters): EventSource {
  let store = openStateRootStore(stateRoot);
  let cursor = 0;
  return {
    where: `under ${stateRoot}`,
    poll: async () => {
      store ??= openStateRootStore(stateRoot);
      const rows = (await store?.runtimeEvents({ after: cursor, ...filters })) ?? [];
      cursor = rows.at(-1)?.cursor ?? cursor;
      return rows.map((row) => row.event as unknown as Record<string, unknown>);
    },
    close: () => void store?.close(),
  };
}

function apiSource(options: {
  flags: Record<string, string | boolean | number | undefined>;
  io: CliIo;
  filters: ApiEventFilters;
}): EventSource {
  const target = apiTarget({ flags: options.flags, env: options.io.env });
  let cursor = "0";
  let told: string | undefined;
  return {
    where: `at ${target.baseUrl}`,
    poll: async () => {
      const events: Record<string, unknown>[] = [];
      // Page after page while the API says more wait (a cluster node's page is bounded), as long as each moves on.
      for (;;) {
        const page = await apiRuntimeEvents({ target, filters: options.filters, cursor });
        const moved = page.cursor !== cursor;
        cursor = page.cursor;
        events.push(...page.events);
        // Said once per change: a node that stays mute is not repeated at every poll.
        const notice = unansweredNotice(page.unanswered, "their events are");
        if (notice !== undefined && notice !== told) options.io.stderr(`goondan logs: ${notice}\n`);
        told = notice;
        if (!page.more || !moved) return events;
      }
    },
    close: () => undefined,
  };
}
