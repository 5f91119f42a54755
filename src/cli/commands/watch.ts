/**
 * `goondan watch [--agent A] [--instance K] [--type T] [--trace ID] [--json]`: prints the runtime events of a
 * running swarm as they happen, one readable line each (as `goondan logs` prints them) or JSON lines, through the
 * running orchestrator's HTTP API (`GET /v1/watch`, with the bearer token from GOONDAN_API_TOKEN). `--type` takes an
 * event type or a prefix of one (`tool.`). Runs until Ctrl+C, or until the orchestrator goes away (exit 1).
 */
import { SystemError } from "../../shared/errors.ts";
import { EXIT, type CliCommand } from "../command.ts";
import { API_FLAGS, apiError, apiTarget } from "../operator/api-client.ts";
import { formatRuntimeEvent } from "./logs.ts";

/** The `data:` of each `event: runtime` block of an SSE text, as they complete; the rest of the text is kept for the next call. */
export function takeRuntimeEvents(buffer: string): { events: Record<string, unknown>[]; rest: string } {
  const events: Record<string, unknown>[] = [];
  let rest = buffer;
  let end: number;
  while ((end = rest.indexOf("\n\n")) >= 0) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    if (!/^event: runtime$/m.test(block)) continue;
    const data = block.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n");
    try {
      events.push(JSON.parse(data) as Record<string, unknown>);
    } catch {
      // not an event of ours
    }
  }
  return { events, rest };
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
    for (const [flag, name] of [["agent", "agent"], ["instance", "instanceKey"], ["type", "type"], ["trace", "traceId"]] as const) {
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
        response = await fetch(`${target.baseUrl}/v1/watch${query.size > 0 ? `?${query}` : ""}`, { headers: { accept: "text/event-stream", ...(target.token ? { authorization: `Bearer ${target.token}` } : {}) }, signal: abort.signal });
      } catch (error) {
        if (abort.signal.aborted) return stoppedWith;
        throw new SystemError("E_API_UNREACHABLE", `no goondan orchestrator answers at ${target.baseUrl} (${error instanceof Error ? error.message : String(error)})`, { suggestion: "start it with 'goondan run', or pass --port/--host of the running one" });
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
          for (const event of taken.events) io.stdout(`${flags.json === true ? JSON.stringify(event) : formatRuntimeEvent(event)}\n`);
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
