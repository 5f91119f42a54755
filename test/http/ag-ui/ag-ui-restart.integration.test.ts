/**
 * An AG-UI run resumed across an orchestrator restart, real `goondan run` processes on the loopback model. AG-UI's
 * own client does not resume a stream (HttpAgent reads one response and requires RUN_STARTED first), so the run is
 * read with `fetch`, cut inside its streamed reply, the orchestrator stopped (SIGTERM, SIGKILL) and started again,
 * and the same RunAgentInput posted with `Last-Event-ID`: the ids go on increasing, the text is the reply once, each
 * tool call starts, ends and has its result once; and the two halves spliced together are a run `@ag-ui/client`'s
 * HttpAgent accepts (it checks the order of the events) and reads as the reply.
 */
import { describe, expect, it } from "bun:test";
import { HttpAgent } from "@ag-ui/client";
import { sseMessages } from "../../../src/client/sse-messages.ts";
import { comparePositions, keyedPosition, type StreamPosition } from "../../../src/http/stream-position.ts";
import { lastRole, roleOf } from "../../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { lastUserText, type LoopbackReply, type LoopbackRequest } from "../../helpers/loopback-llm.ts";
import { startTcpProxy } from "../../helpers/tcp-proxy.ts";
import { realSwarm, startSwarmRun } from "../run-fixture.ts";

const defer = useCleanups();
const FINAL = "All done, in many small pieces so that the stop lands in the middle of them.";

function delegating(request: LoopbackRequest): LoopbackReply {
  if (roleOf(request) === "worker") return { text: "worker done" };
  if (lastRole(request) === "user")
    return { toolCalls: [{ name: "agents__request", args: { target: "worker", input: lastUserText(request) } }] };
  return { text: FINAL, chunkDelayMs: 150, textPieces: 12 };
}

interface Raw {
  id: string;
  /** The SSE text as it came. */
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: AG-UI events differ by type; the assertions read their fields
  event: Record<string, any>;
}

/** Reads a run's events until `stop` says so (or the stream ends). */
async function read(response: Response, stop: (event: Raw["event"]) => boolean): Promise<Raw[]> {
  const taken: Raw[] = [];
  for await (const message of sseMessages(response.body!)) {
    const event = JSON.parse(message.data) as Raw["event"];
    taken.push({ id: message.id ?? "", text: `id: ${message.id}\ndata: ${message.data}\n\n`, event });
    if (stop(event)) break;
  }
  return taken;
}

describe("an AG-UI run across an orchestrator restart, real processes", () => {
  for (const signal of ["SIGTERM", "SIGKILL"] as const)
    it(`resumes after ${signal} with Last-Event-ID: no gap, no double, a run @ag-ui/client accepts`, async () => {
      const swarm = await realSwarm({ defer, streaming: true, llm: { respond: delegating } });
      const start = (port: number) => startSwarmRun(swarm, { defer, port });
      const first = await start(0);
      const proxy = await startTcpProxy({ targetHost: "127.0.0.1", targetPort: first.port });
      defer(() => proxy.close());
      const input = {
        threadId: `thread-${signal}`,
        runId: "run-1",
        messages: [{ id: "m1", role: "user", content: "the report" }],
      };
      const post = (headers: Record<string, string> = {}) =>
        fetch(`http://${proxy.address}/v1/ag-ui`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify(input),
        });
      const before = await read(await post(), (event) => event.type === "TEXT_MESSAGE_CONTENT");

      await proxy.stop();
      first.proc.kill(signal);
      await first.proc.exited;
      await start(first.port);
      await proxy.start();
      const lastId = before.at(-1)?.id as string;
      const after = await read(
        await post({ "last-event-id": lastId }),
        (event) => event.type === "RUN_FINISHED" || event.type === "RUN_ERROR",
      );
      const all = [...before, ...after];

      // The ids go on increasing across the restart.
      const positions = all.map((raw) => keyedPosition(raw.id)?.position as StreamPosition);
      expect(positions.every((at, index) => index === 0 || comparePositions(at, positions[index - 1]!) > 0)).toBe(true);
      const events = all.map((raw) => raw.event);
      expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
      // The reply once: no gap, no double.
      const text = events.filter((event) => event.type === "TEXT_MESSAGE_CONTENT").map((event) => event.delta);
      expect(text.join("")).toBe(FINAL);
      // Each call started, ended and got its result once.
      const calls = events.filter((event) => event.type === "TOOL_CALL_START").map((event) => event.toolCallId);
      expect(new Set(calls).size).toBe(calls.length);
      for (const type of ["TOOL_CALL_END", "TOOL_CALL_RESULT"])
        expect(
          events
            .filter((event) => event.type === type)
            .map((event) => event.toolCallId)
            .sort(),
        ).toEqual([...calls].sort());

      // The two halves spliced are a valid run for AG-UI's own client.
      const spliced = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: () =>
          new Response(all.map((raw) => raw.text).join(""), { headers: { "content-type": "text/event-stream" } }),
      });
      defer(() => spliced.stop(true));
      const agent = new HttpAgent({ url: `http://127.0.0.1:${spliced.port}/`, threadId: input.threadId });
      agent.addMessage({ id: "m1", role: "user", content: "the report" });
      await agent.runAgent({ runId: "run-1" });
      const replies = agent.messages.filter((message) => message.role === "assistant");
      expect(replies.map((message) => message.content ?? "").join("")).toBe(FINAL);
    }, 150_000);
});
