/**
 * `goondan watch [--agent A] [--instance K] [--type T] [--trace ID] [--json]`: prints the runtime events of a
 * running swarm as they happen, one readable line each (as `goondan logs` prints them) or JSON lines, through the
 * running orchestrator's HTTP API (`GET /v1/watch`, with the bearer token from GOONDAN_API_TOKEN). `--type` takes an
 * event type or a prefix of one (`tool.`). On a node of a cluster every node's events, each line naming its node, and
 * the nodes that did not answer are said on stderr. Runs until Ctrl+C, or until the orchestrator goes away (exit 1).
 * Reads the stream with the typed client (src/client/), which parses it with eventsource-parser.
 */
import { createClient, GoondanApiError, GoondanConnectionError, type WatchEvent } from "../../client/index.ts";
import { SystemError } from "../../shared/errors.ts";
import { EXIT, type CliCommand } from "../command.ts";
import { API_FLAGS, apiError, apiTarget, unansweredNotice } from "../operator/api-client.ts";
import { formatRuntimeEvent } from "./logs.ts";

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
      const client = createClient({ baseUrl: target.baseUrl, ...(target.token ? { token: target.token } : {}) });
      const filters = Object.fromEntries(query);
      const print = (item: WatchEvent) => {
        if (item.type === "cluster") {
          const said = unansweredNotice(
            item.unanswered,
            item.replay === true ? "their stored events are" : "their live events are",
          );
          if (said !== undefined) io.stderr(`goondan watch: ${said}\n`);
        } else {
          const event = item.event as unknown as Record<string, unknown>;
          io.stdout(`${flags.json === true ? JSON.stringify(event) : formatRuntimeEvent(event)}\n`);
        }
      };
      try {
        for await (const item of client.watch({ ...filters, signal: abort.signal, reconnect: false })) print(item);
      } catch (error) {
        if (abort.signal.aborted) return stoppedWith;
        if (error instanceof GoondanApiError) {
          const refused = apiError(error.body);
          io.stderr(`goondan watch: ${refused?.code ?? error.status}: ${refused?.message ?? error.message}\n`);
          return EXIT.failure;
        }
        if (error instanceof GoondanConnectionError)
          throw new SystemError(
            "E_API_UNREACHABLE",
            `no goondan orchestrator answers at ${target.baseUrl} (${error.cause instanceof Error ? error.cause.message : String(error.cause)})`,
            { suggestion: "start it with 'goondan run', or pass --port/--host of the running one" },
          );
        throw error;
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
