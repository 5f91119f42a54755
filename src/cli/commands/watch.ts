/**
 * `goondan watch [--agent A] [--instance K] [--type T] [--trace ID] [--json]`: prints the runtime events of a
 * running swarm as they happen, one readable line each (as `goondan logs` prints them) or JSON lines, through the
 * running orchestrator's HTTP API (`GET /v1/watch`, with the bearer token from GOONDAN_API_TOKEN). `--type` takes an
 * event type or a prefix of one (`tool.`). On a node of a cluster every node's events, each line naming its node, and
 * the nodes that did not answer are said on stderr. Runs until Ctrl+C, or until the orchestrator goes away (exit 1).
 */
import { SystemError } from "../../shared/errors.ts";
import { EXIT, type CliCommand } from "../command.ts";
import { API_FLAGS, apiError, apiTarget, unansweredNotice } from "../operator/api-client.ts";
import { formatRuntimeEvent } from "./logs.ts";

/** A cluster node's `event: cluster`: the nodes that did not answer the watch (their live events, or a replay's). */
export interface WatchNotice {
  unanswered: Array<{ node: string; status: string }>;
  replay?: boolean;
}

/**
 * The `data:` of each `event: runtime` block of an SSE text, as they complete, and of each `event: cluster` block
 * (`notices`); the rest of the text is kept for the next call.
 */
export function takeRuntimeEvents(buffer: string): {
  events: Record<string, unknown>[];
  notices: WatchNotice[];
  rest: string;
} {
  const events: Record<string, unknown>[] = [];
  const notices: WatchNotice[] = [];
  let rest = buffer;
  let end: number;
  while ((end = rest.indexOf("\n\n")) >= 0) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const kind = /^event: (runtime|cluster)$/m.exec(block)?.[1];
    if (kind === undefined) continue;
    const data = block
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => line.slice(6))
      .join("\n");
    try {
      const parsed = JSON.parse(data) as Record<string, unknown>;
      if (kind === "runtime") events.push(parsed);
      else if (Array.isArray(parsed.unanswered)) notices.push(parsed as unknown as WatchNotice);
    } catch {
      // not an event of ours
    }
  }
  return { events, notices, rest };
}

export const command: CliCommand = {
  name: "watch",
  summary: "print the runtime events of a running swarm as they happen",
  usage: "goondan watch [--agent NAME] [--instance KEY] [--type TYPE] [--trace ID] [--json] [--port N] [--host H]",
  maxPositionals: 0,
  flags: {
    agent: { type: "string", description: "only this agent's events" },
    instance: { type: "string", description: "only events of instances with this instanceKey" },
    type: { type: "string", description: "only events of this type, or of types starting with it (tool.)" },
    trace: { type: "string", description: "only events of this traceId (one request and what it delegated)" },
    json: { type: "boolean", description: "print each event as one JSON line" },
    ...API_FLAGS,
  },
  async run({ flags, io }) {
    const target = apiTarget({ flags, env: io.env });
    const query = new URLSearchParams();
    for (const [flag, name] of [
      ["agent", "agent"],
      ["instance", "instanceKey"],
      ["type", "type"],
      ["trace", "traceId"],
    ] as const) {
      if (typeof flags[flag] === "string") query.set(name, flags[flag]);
    }
    const abort = new AbortController();
    // Ctrl+C is an interrupt (130); a polite SIGTERM is a normal end.
    let stoppedWith: number = EXIT.interrupted;
    const onInterrupt = () => abort.abort();
    const onTerminate = () => ((stoppedWith = EXIT.ok), abort.abort());
    process.once("SIGINT", onInterrupt);
    process.once("SIGTERM", onTerminate);
    try {
      let response: Response;
      try {
        response = await fetch(`${target.baseUrl}/v1/watch${query.size > 0 ? `?${query}` : ""}`, {
          headers: {
            accept: "text/event-stream",
            ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
          },
          signal: abort.signal,
        });
      } catch (error) {
        if (abort.signal.aborted) return stoppedWith;
        throw new SystemError(
          "E_API_UNREACHABLE",
          `no goondan orchestrator answers at ${target.baseUrl} (${error instanceof Error ? error.message : String(error)})`,
          { suggestion: "start it with 'goondan run', or pass --port/--host of the running one" },
        );
      }
      if (!response.ok || response.body === null) {
        const body = (await response.json().catch(() => undefined)) as unknown;
        const error = apiError(body);
        io.stderr(`goondan watch: ${error?.code ?? response.status}: ${error?.message ?? response.statusText}\n`);
        return EXIT.failure;
      }
      const decoder = new TextDecoder();
      let buffer = "";
      try {
        for await (const chunk of response.body) {
          const taken = takeRuntimeEvents(buffer + decoder.decode(chunk, { stream: true }));
          buffer = taken.rest;
          for (const notice of taken.notices) {
            const said = unansweredNotice(
              notice.unanswered,
              notice.replay === true ? "their stored events are" : "their live events are",
            );
            if (said !== undefined) io.stderr(`goondan watch: ${said}\n`);
          }
          for (const event of taken.events)
            io.stdout(`${flags.json === true ? JSON.stringify(event) : formatRuntimeEvent(event)}\n`);
        }
      } catch (error) {
        if (!abort.signal.aborted) throw error;
      }
      if (abort.signal.aborted) return stoppedWith;
      io.stderr("goondan watch: the orchestrator closed the stream\n");
      return EXIT.failure;
    } finally {
      process.off("SIGINT", onInterrupt);
      process.off("SIGTERM", onTerminate);
    }
  },
};
