/**
 * A streamed `POST /v1/events` read with the typed client (goondan/client) while its orchestrator is stopped under it
 * (SIGTERM, a drain; SIGKILL, a crash) and started again on the same state root and port, its connection cut just
 * before: the client resumes the stream with `Last-Event-ID` from the new orchestrator and gets exactly what it
 * missed, from the store, then the rest. With 0 gaps and 0
 * doubles: every stored `tool.*` event of the event's trace is one `tool` message, none more; the text after the last
 * `restarted` (the turn ran again after a crash) is the reply, once; `done` is the stored outcome. Real `goondan run`
 * processes, the loopback model streaming slowly, the coordinator delegating to a worker that runs a slow tool.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type StreamEvent } from "../../src/client/index.ts";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import { lastRole, roleOf } from "../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { startTcpProxy } from "../helpers/tcp-proxy.ts";
import { lastUserText, type LoopbackReply, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { realSwarm, startSwarmRun } from "./run-fixture.ts";

const defer = useCleanups();
const FINAL = "The answer is forty-two, said slowly and in many small parts so that a stop lands inside it.";

function script(marker: string) {
  return (request: LoopbackRequest): LoopbackReply => {
    if (roleOf(request) === "worker")
      return lastRole(request) === "tool"
        ? { text: "worker done" }
        : { toolCalls: [{ name: "slow__sleep", args: { ms: 1500, marker } }] };
    if (lastRole(request) === "user")
      return { toolCalls: [{ name: "agents__request", args: { target: "worker", input: lastUserText(request) } }] };
    return { text: FINAL, chunkDelayMs: 150, textPieces: 12 };
  };
}

type Stop = "SIGTERM" | "SIGKILL";

/** Where the stop lands: inside the worker's slow tool, or inside the coordinator's streamed reply. */
type During = "tool" | "text";

describe("a streamed send across an orchestrator restart, real processes and the typed client", () => {
  const cases: Array<[Stop, During]> = [
    ["SIGTERM", "text"],
    ["SIGTERM", "tool"],
    ["SIGKILL", "text"],
    ["SIGKILL", "tool"],
  ];
  for (const [signal, during] of cases)
    it(`resumes after ${signal} during the ${during} with no gap and no double`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "goondan-stream-restart-"));
      defer(() => rmSync(dir, { recursive: true, force: true }));
      const swarm = await realSwarm({ defer, streaming: true, llm: { respond: script(join(dir, "sleep")) } });
      const start = (port: number) => startSwarmRun(swarm, { defer, port });
      const first = await start(0);
      // The client reaches the orchestrator through a proxy the test cuts: its stream breaks before the stop (a
      // drain would otherwise finish it), and it reconnects only to the orchestrator started again.
      const proxy = await startTcpProxy({ targetHost: "127.0.0.1", targetPort: first.port });
      defer(() => proxy.close());
      const client = createClient({ baseUrl: `http://${proxy.address}` });
      const seen: StreamEvent[] = [];
      const reading = (async () => {
        const stream = client.send(
          { input: "question", instanceKey: `restart-${during}` },
          { stream: true, retryMs: 100 },
        );
        for await (const message of stream) seen.push(message);
      })();
      if (during === "tool")
        await until(() => seen.some((item) => item.type === "tool" && item.data.name === "slow__sleep"), {
          timeoutMs: 30_000,
        });
      else await until(() => seen.some((item) => item.type === "delta"), { timeoutMs: 30_000 });

      await proxy.stop();
      first.proc.kill(signal);
      await first.proc.exited;
      const second = await start(first.port);
      await proxy.start();
      await Promise.race([
        reading,
        Bun.sleep(90_000).then(() => {
          throw new Error(`the stream did not end: ${JSON.stringify(seen.map((item) => item.type))}`);
        }),
      ]);

      const done = seen.at(-1);
      if (done?.type !== "done") throw new Error(`ended with ${JSON.stringify(done)}`);
      expect(done.data).toMatchObject({ status: "ok", response: FINAL });
      // The text after the last restart is the reply, once.
      const restart = seen.map((item) => item.type).lastIndexOf("restarted");
      const text = seen
        .slice(restart + 1)
        .flatMap((item) => (item.type === "delta" ? [item.data.text] : []))
        .join("");
      expect(text).toBe(FINAL);

      // Every stored tool event of the event's trace is one tool message: no gap, no double.
      const read = async (query: string) =>
        ((await (await fetch(`${second.base}/v1/runtime-events?${query}`)).json()) as { events: RuntimeEvent[] })
          .events;
      const own = await read(`agent=coordinator&instanceKey=restart-${during}`);
      const traceId = own.find((event) => event.eventId === done.data.eventId)?.traceId;
      expect(traceId).toBeString();
      const stored = (await read(`traceId=${traceId}`)).filter((event) => event.type.startsWith("tool."));
      const key = (agent: string, callId: string, phase: string) => `${agent} ${callId} ${phase}`;
      const expected = stored.map((event) =>
        key(event.agent, event.toolCallId ?? "", event.type === "tool.called" ? "started" : "ended"),
      );
      const got = seen.flatMap((item) =>
        item.type === "tool" ? [key(item.data.agent, item.data.callId, item.data.phase)] : [],
      );
      expect(got.sort()).toEqual(expected.sort());
      expect(expected.length).toBeGreaterThanOrEqual(4);
    }, 150_000);
});
