/**
 * Token streaming over real processes: a real `goondan run` (orchestrator, Bun agent children) on a loopback
 * OpenAI-compatible model that streams its answer slowly (`options.stream: true`). The first `delta` reaches the
 * HTTP client before the model has finished writing; the tool calls of the worker the coordinator delegated to
 * are in the coordinator's stream; `done` carries what `GET /v1/events/:id` answers, but with the usage of both
 * the coordinator's turn and the worker's it delegated to (the stored outcome counts its own turn); a child killed
 * mid-stream is announced with `restarted` and the text starts over; `GET /v1/events/:id` answers after a `202` and after the
 * orchestrator was SIGKILLed and started again; `GET /v1/watch` delivers only what its filters ask for.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EVENT_ID_HEADER } from "../../src/http/routes/events.ts";
import { childEnv, lastRole, roleOf } from "../fixtures/orchestrator/real-swarm.ts";
import { useCleanups, killChild } from "../helpers/cleanups.ts";
import { startGoondanRun, until } from "../helpers/goondan-process.ts";
import { lastUserText, type LoopbackRequest, type LoopbackReply } from "../helpers/loopback-llm.ts";
import { sseReader } from "../helpers/sse-reader.ts";
import { serveRealSwarm } from "./run-fixture.ts";

const defer = useCleanups();
const FINAL = "The answer is forty-two, said slowly and in parts.";

function markerDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-stream-marker-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Coordinator delegates to the worker, the worker runs slow__sleep, then the coordinator streams FINAL slowly. */
function delegatingScript(marker: string, finalPace: Partial<LoopbackReply> = {}) {
  return (request: LoopbackRequest): LoopbackReply => {
    const role = roleOf(request);
    if (role === "worker")
      return lastRole(request) === "tool"
        ? { text: "worker done" }
        : { toolCalls: [{ name: "slow__sleep", args: { ms: 10, marker } }] };
    if (lastRole(request) === "user")
      return { toolCalls: [{ name: "agents__request", args: { target: "worker", input: lastUserText(request) } }] };
    return { text: FINAL, chunkDelayMs: 150, textPieces: 6, ...finalPace };
  };
}

const post = (base: string, body: unknown) =>
  fetch(`${base}/v1/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const getJson = async (url: string) => (await (await fetch(url)).json()) as Record<string, any>;

describe("POST /v1/events with stream: true, real processes", () => {
  it("streams deltas before the model finished, the delegated worker's tool calls, then done = the stored outcome with the usage of both turns", async () => {
    const marker = join(markerDir(), "sleep");
    const run = await serveRealSwarm({ defer, streaming: true, llm: { respond: delegatingScript(marker) } });
    const response = await post(run.base, { input: "question", stream: true });
    expect(response.status).toBe(200);
    const eventId = response.headers.get(EVENT_ID_HEADER)!;
    const sse = sseReader(response);
    const first = await sse.next("delta");
    const firstDeltaAt = Date.now();
    const rest = await sse.rest();
    const final = run.llm.requests.at(-1)!;
    expect(final.stream).toBe(true);
    // The model was still writing when the client had its first delta.
    expect(firstDeltaAt).toBeLessThan(final.finishedAt!);
    const deltas = [first, ...rest.filter((item) => item.event === "delta")].map((item) => item.data.text as string);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join("")).toBe(FINAL);
    const tools = sse.seen
      .filter((item) => item.event === "tool")
      .map(
        (item) =>
          `${item.data.phase} ${item.data.agent} ${item.data.name}${item.data.status ? ` ${item.data.status}` : ""}`,
      );
    expect(tools).toEqual([
      "started coordinator agents__request",
      "started worker slow__sleep",
      "ended worker slow__sleep ok",
      "ended coordinator agents__request ok",
    ]);
    const done = rest.at(-1)!;
    expect(done.event).toBe("done");
    expect(done.data).toMatchObject({ status: "ok", response: FINAL, eventId, agent: "coordinator" });
    const { state, ...stored } = await getJson(`${run.base}/v1/events/${eventId}`);
    expect(state).toBe("ok");
    // The stored outcome is the coordinator's turn; done counts the tokens of the worker's turn it delegated to too
    // (two model calls each, of the same usage).
    const { usage, ...outcome } = done.data;
    expect({ ...outcome, usage: stored.usage }).toEqual(stored);
    expect(usage).toEqual({ inputTokens: 2 * stored.usage.inputTokens, outputTokens: 2 * stored.usage.outputTokens });
  }, 60_000);

  it("announces a child killed mid-stream with restarted, and the text starts over once", async () => {
    const marker = join(markerDir(), "sleep");
    const run = await serveRealSwarm({
      defer,
      streaming: true,
      llm: { respond: delegatingScript(marker, { chunkDelayMs: 300 }) },
    });
    const response = await post(run.base, { input: "question", stream: true });
    const sse = sseReader(response);
    await sse.next("delta");
    const processes = await getJson(`${run.base}/v1/processes`);
    const coordinator = (processes.processes as { agent: string; pid: number | null }[]).find(
      (row) => row.agent === "coordinator" && typeof row.pid === "number",
    );
    expect(coordinator?.pid).toBeGreaterThan(0);
    process.kill(coordinator!.pid!, "SIGKILL");
    const rest = await sse.rest();
    const events = rest.map((item) => item.event);
    expect(events).toContain("restarted");
    const after = rest.slice(events.indexOf("restarted"));
    expect(after[0]!.data).toEqual({ reason: "redelivered" });
    expect(
      after
        .filter((item) => item.event === "delta")
        .map((item) => item.data.text)
        .join(""),
    ).toBe(FINAL);
    expect(rest.at(-1)).toMatchObject({ event: "done", data: { status: "ok", response: FINAL } });
  }, 60_000);
});

describe("GET /v1/events/:eventId, real processes", () => {
  it("answers the reply after a 202, and after the orchestrator was SIGKILLed and started again", async () => {
    const marker = join(markerDir(), "sleep");
    const run = await serveRealSwarm({ defer, llm: { respond: delegatingScript(marker, { chunkDelayMs: 0 }) } });
    const accepted = (await (await post(run.base, { input: "first" })).json()) as { eventId: string };
    const answered = await until(
      async () => {
        const state = await getJson(`${run.base}/v1/events/${accepted.eventId}`);
        return state.state === "ok" ? state : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(answered).toMatchObject({ eventId: accepted.eventId, status: "ok", response: FINAL });

    run.proc.kill("SIGKILL");
    await run.proc.exited;
    const again = await startGoondanRun({
      args: [run.dir, "--port", "0", "--state-root", run.stateRoot],
      env: { ...childEnv, GOONDAN_LOG_LEVEL: "info" },
      onSpawn: (proc) => defer(killChild(proc)),
    });
    expect(await getJson(`${again.base}/v1/events/${accepted.eventId}`)).toEqual(answered);
    const missing = await fetch(`${again.base}/v1/events/evt_never`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("E_API_EVENT_NOT_FOUND");
  }, 60_000);
});

describe("GET /v1/watch, real processes", () => {
  it("delivers the runtime events its filters ask for, as they happen", async () => {
    const marker = join(markerDir(), "sleep");
    const run = await serveRealSwarm({ defer, llm: { respond: delegatingScript(marker, { chunkDelayMs: 0 }) } });
    const workerTools = sseReader(await fetch(`${run.base}/v1/watch?agent=worker&type=tool.`));
    const all = sseReader(await fetch(`${run.base}/v1/watch`));
    const reply = (await (await post(run.base, { input: "go", wait: true })).json()) as { status: string };
    expect(reply.status).toBe("ok");
    const called = await workerTools.next("runtime");
    const completed = await workerTools.next("runtime");
    expect([called.data.type, completed.data.type]).toEqual(["tool.called", "tool.completed"]);
    expect(called.data).toMatchObject({ agent: "worker", toolName: "slow__sleep" });
    while (!all.seen.some((item) => item.data.type === "turn.completed" && item.data.agent === "coordinator"))
      await all.more();
    // The first message says where the watch starts (`ready`, its cursor as its id); the rest are runtime events.
    expect(all.seen[0]?.event).toBe("ready");
    const runtime = all.seen.filter((item) => item.event === "runtime");
    expect(new Set(runtime.map((item) => item.data.agent))).toEqual(new Set(["coordinator", "worker"]));
    expect(
      workerTools.seen
        .filter((item) => item.event === "runtime")
        .every((item) => item.data.agent === "worker" && String(item.data.type).startsWith("tool.")),
    ).toBe(true);
    // By trace: only the turns of that request.
    const traceId = called.data.traceId as string;
    const byTrace = sseReader(await fetch(`${run.base}/v1/watch?traceId=${traceId}&after=0`));
    const replayed = await byTrace.next("runtime");
    expect(replayed.data.traceId).toBe(traceId);
    await Promise.all([workerTools.cancel(), all.cancel(), byTrace.cancel()]);
  }, 60_000);
});
