/**
 * The stream's tool events and the span endpoint over real processes: a real `goondan run` whose coordinator delegates
 * to a worker that calls slow__sleep with arguments holding the model's API key (as a model that leaked it would)
 * and 6 KB of padding. Each `tool` event names its callId; a started one carries the args, an ended one its status,
 * durationMs and result; args over 4 KiB arrive truncated and marked; the key appears in no frame and in no stored
 * event; `done` carries the token usage of every turn of the event (the coordinator's and the worker's it delegated to); `GET /v1/traces/:traceId/spans/:spanId` serves a tool span's args
 * and result and a model span's answer, and a span no event carries is `404 E_SPAN_NOT_FOUND`.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EVENT_ID_HEADER } from "../../src/http/routes/events.ts";
import { lastRole, roleOf } from "../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import type { LoopbackRequest, LoopbackReply } from "../helpers/loopback-llm.ts";
import { sseReader } from "../helpers/sse-reader.ts";
import { serveRealSwarm } from "./run-fixture.ts";

const defer = useCleanups();
const SECRET = "sk-loopback-0123456789-never-shown";
const usage = { promptTokens: 11, completionTokens: 5 };

describe("the stream's tool events, real processes", () => {
  it("carry callId, redacted and bounded args and results, durations and statuses; done carries the usage of the event's every turn; spans serve inputs and outputs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "goondan-tool-events-"));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const marker = join(dir, "sleep");
    const respond = (request: LoopbackRequest): LoopbackReply => {
      if (roleOf(request) === "worker")
        return lastRole(request) === "tool"
          ? { text: "worker done", usage }
          : {
              toolCalls: [{ name: "slow__sleep", args: { ms: 20, marker, note: `key ${SECRET} ${"x".repeat(6000)}` } }],
              usage,
            };
      return lastRole(request) === "user"
        ? { toolCalls: [{ name: "agents__request", args: { target: "worker", input: "work" } }], usage }
        : { text: "all done", usage };
    };
    const run = await serveRealSwarm({ defer, streaming: true, llm: { respond }, env: { LOOPBACK_API_KEY: SECRET } });
    const response = await fetch(`${run.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "go", instanceKey: "t1", stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get(EVENT_ID_HEADER)).toBeTruthy();
    const sse = sseReader(response);
    const rest = await sse.rest();
    const tools = sse.seen.filter((item) => item.event === "tool").map((item) => item.data);
    expect(tools.map((tool) => `${tool.phase} ${tool.agent} ${tool.name}`)).toEqual([
      "started coordinator agents__request",
      "started worker slow__sleep",
      "ended worker slow__sleep",
      "ended coordinator agents__request",
    ]);
    const [delegated, sleepStarted, sleepEnded, delegationEnded] = tools;
    // One callId per call, the same when it starts and ends.
    expect(typeof sleepStarted.callId).toBe("string");
    expect(sleepEnded.callId).toBe(sleepStarted.callId);
    expect(delegationEnded.callId).toBe(delegated.callId);
    expect(delegated.args).toEqual({ target: "worker", input: "work" });
    // Args over 4 KiB: truncated, marked, with their size, and the key redacted.
    expect(sleepStarted.args.truncated).toBe(true);
    expect(sleepStarted.args.bytes).toBeGreaterThan(6000);
    expect(Buffer.byteLength(sleepStarted.args.preview)).toBeLessThanOrEqual(4096 + 3);
    expect(sleepStarted.args.preview).toContain("key [redacted] xxx");
    expect(sleepEnded).toMatchObject({ status: "ok", result: { status: "ok", output: { slept: 20 } } });
    expect(sleepEnded.durationMs).toBeGreaterThanOrEqual(20);
    expect(JSON.stringify(delegationEnded.result)).toContain("worker done");
    expect(delegationEnded.status).toBe("ok");
    const done = rest.at(-1)!;
    expect(done).toMatchObject({ event: "done", data: { status: "ok", response: "all done" } });
    // The coordinator's two model calls and the worker's two, in the turn it was delegated.
    expect(done.data.usage).toEqual({ inputTokens: 44, outputTokens: 20 });
    expect(JSON.stringify(sse.seen)).not.toContain(SECRET);

    // The span endpoint, found from the coordinator's events.
    const get = async (path: string) => {
      const answer = await fetch(`${run.base}${path}`);
      return { status: answer.status, body: (await answer.json()) as Record<string, any> };
    };
    const own = await get("/v1/instances/coordinator/t1/events?limit=1000");
    const traceId = own.body.events[0].traceId as string;
    const trace = await get(`/v1/traces/${traceId}`);
    expect(JSON.stringify(trace.body)).not.toContain(SECRET);
    const events = trace.body.events as Array<Record<string, any>>;
    const sleep = events.find((event) => event.type === "tool.completed" && event.toolName === "slow__sleep")!;
    const toolSpan = await get(`/v1/traces/${traceId}/spans/${sleep.spanId}`);
    expect(toolSpan.status).toBe(200);
    expect(toolSpan.body.span).toMatchObject({
      kind: "tool",
      name: "tool slow__sleep",
      agent: "worker",
      status: "ok",
      inputs: { args: { truncated: true } },
      outputs: { result: { status: "ok", output: { slept: 20 } } },
    });
    expect(toolSpan.body.span.durationMs).toBeGreaterThanOrEqual(20);
    const model = events.findLast((event) => event.type === "model.completed" && event.agent === "coordinator")!;
    const modelSpan = await get(`/v1/traces/${traceId}/spans/${model.spanId}`);
    expect(modelSpan.body.span).toMatchObject({
      kind: "model",
      usage: { inputTokens: 11, outputTokens: 5 },
      outputs: { output: { text: "all done" }, finishReason: "stop" },
      inputs: { input: { messages: 4 } },
    });
    const missing = await get(`/v1/traces/${traceId}/spans/0123456789abcdef`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("E_SPAN_NOT_FOUND");
  }, 60_000);
});
