/**
 * `goondan run` and `goondan ps` as real processes (bin/goondan) with real agent children on the loopback
 * LLM: the ready line, SIGTERM draining a running turn with no child left, orchestrator kill -9 followed by
 * a new run that answers the accepted event, --input, config errors (exit 3), the bearer token and ps.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { unansweredEvents } from "../helpers/stored-state.ts";
import { DUPLICATE_SIGINT_WINDOW_MS } from "../../src/daemon/shutdown-signals.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  startLoopbackLlm,
  systemPrompt,
  toolResults,
  type LoopbackLlmOptions,
  type LoopbackRequest,
} from "../helpers/loopback-llm.ts";
import { childEnv, lastRole, writeSwarmBundle } from "../fixtures/orchestrator/real-swarm.ts";
import { GOONDAN_BIN, isAlive, startGoondanRun, until } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const BIN = GOONDAN_BIN;
const defer = useCleanups();

async function fixture(respond: LoopbackLlmOptions["respond"], policy?: Record<string, unknown>) {
  const llm = await startLoopbackLlm({ respond });
  const dir = writeSwarmBundle({ endpoint: llm.url, ...(policy ? { policy } : {}) });
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-run-"));
  defer(async () => {
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  });
  return { llm, dir, stateRoot };
}

function spawnGoondan(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, BIN, ...args], {
    env: { ...process.env, ...childEnv, GOONDAN_LOG_LEVEL: "info", ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  defer(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  });
  return proc;
}

/** Starts `goondan run` and resolves with its port once the `ready` log line appears. */
async function startDaemon(options: { dir: string; stateRoot: string; env?: Record<string, string> }) {
  return startGoondanRun({
    args: [options.dir, "--port", "0", "--state-root", options.stateRoot],
    env: { ...childEnv, GOONDAN_LOG_LEVEL: "info", ...options.env },
    onSpawn: (proc) =>
      defer(() => {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      }),
  });
}

const alive = isAlive;

const slowThenDone = (marker: string, ms: number) => (request: LoopbackRequest) =>
  lastRole(request) === "tool"
    ? { text: `done after ${JSON.stringify(toolResults(request).at(-1)?.content)}` }
    : { toolCalls: [{ name: "slow__sleep", args: { ms, marker } }] };

const childPids = async (base: string): Promise<number[]> => {
  const body = (await (await fetch(`${base}/v1/processes`)).json()) as { processes: { pid: number | null }[] };
  return body.processes.flatMap((row) => (row.pid === null ? [] : [row.pid]));
};

describe("goondan run", () => {
  it("logs ready with the bound port, drains a running turn on SIGTERM and exits 0 with no child left", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "goondan-marker-")), "slept");
    defer(() => rmSync(marker, { force: true }));
    const f = await fixture(slowThenDone(marker, 600));
    const daemon = await startDaemon({ dir: f.dir, stateRoot: f.stateRoot });
    expect(await (await fetch(`${daemon.base}/healthz`)).json()).toEqual({ status: "ok" });
    const waiting = fetch(`${daemon.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "slow please", wait: true }),
    });
    await until(() => existsSync(marker));
    const pids = await childPids(daemon.base);
    expect(pids.length).toBe(1);
    daemon.proc.kill("SIGTERM");
    const response = await waiting;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "ok", response: expect.stringContaining("done after") });
    expect(await daemon.proc.exited).toBe(0);
    expect(pids.filter(alive)).toEqual([]);
  }, 30_000);

  it("a second SIGINT while draining exits at once with 130, and the child still goes away", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "goondan-marker-")), "slept");
    defer(() => rmSync(marker, { force: true }));
    const f = await fixture(slowThenDone(marker, 4000));
    const daemon = await startDaemon({ dir: f.dir, stateRoot: f.stateRoot });
    void fetch(`${daemon.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "slow", wait: true }),
    }).catch(() => undefined);
    await until(() => existsSync(marker));
    const [child] = (await childPids(daemon.base)) as [number];
    daemon.proc.kill("SIGINT");
    await until(() => daemon.lines.some((line) => line.msg === "shutting down"));
    await Bun.sleep(DUPLICATE_SIGINT_WINDOW_MS); // a SIGINT sooner than this is taken for the same keypress, relayed
    daemon.proc.kill("SIGINT");
    expect(await daemon.proc.exited).toBe(130);
    await until(() => !alive(child), { timeoutMs: 5000 });
  }, 30_000);

  it("after a kill -9 of the orchestrator its child exits, and a new run on the same state root redelivers the accepted event", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "goondan-marker-")), "slept");
    defer(() => rmSync(marker, { force: true }));
    const f = await fixture(slowThenDone(marker, 3000));
    const first = await startDaemon({ dir: f.dir, stateRoot: f.stateRoot });
    const acceptedResponse = await fetch(`${first.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "survive this" }),
    });
    expect(acceptedResponse.status).toBe(202);
    const accepted = (await acceptedResponse.json()) as { eventId: string };
    await until(() => existsSync(marker));
    const [child] = await childPids(first.base);
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    await until(() => !alive(child as number), { timeoutMs: 5000 });
    const unanswered = () => unansweredEvents({ stateRoot: f.stateRoot, swarm: "duo", agent: "coordinator" });
    expect(await unanswered()).toHaveLength(1);

    const second = await startDaemon({ dir: f.dir, stateRoot: f.stateRoot });
    expect(second.lines.find((line) => line.msg === "resumed accepted events")).toMatchObject({ resumed: 1 });
    await until(async () => (await unanswered()).length === 0);
    // The child that lost its orchestrator left the turn uncommitted, so the new run finishes it for real.
    const events = (await (await fetch(`${second.base}/v1/instances/coordinator/duo/events`)).json()) as {
      events: { type?: string; eventId?: string }[];
    };
    expect(events.events.some((event) => event.type === "turn.completed" && event.eventId === accepted.eventId)).toBe(
      true,
    );
    expect(lastRole(f.llm.requests.at(-1) as LoopbackRequest)).toBe("tool");
    second.proc.kill("SIGTERM");
    expect(await second.proc.exited).toBe(0);
  }, 30_000);

  it("after the orchestrator and its child die together, a new run completes the accepted turn", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "goondan-marker-")), "slept");
    defer(() => rmSync(marker, { force: true }));
    const f = await fixture(slowThenDone(marker, 3000));
    const first = await startDaemon({ dir: f.dir, stateRoot: f.stateRoot });
    const accepted = (await (
      await fetch(`${first.base}/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "survive this" }),
      })
    ).json()) as { eventId: string };
    await until(() => existsSync(marker));
    const [child] = (await childPids(first.base)) as [number];
    // A power loss: nobody gets to write anything more (the frozen child cannot react to the lost channel).
    process.kill(child, "SIGSTOP");
    first.proc.kill("SIGKILL");
    process.kill(child, "SIGKILL");
    await first.proc.exited;

    const second = await startDaemon({ dir: f.dir, stateRoot: f.stateRoot });
    await until(async () => {
      const response = await fetch(`${second.base}/v1/instances/coordinator/duo/events`);
      if (response.status !== 200) return false;
      const body = (await response.json()) as { events: { type?: string; eventId?: string }[] };
      return body.events.some((event) => event.type === "turn.completed" && event.eventId === accepted.eventId);
    });
    expect(lastRole(f.llm.requests.at(-1) as LoopbackRequest)).toBe("tool");
    second.proc.kill("SIGTERM");
    expect(await second.proc.exited).toBe(0);
  }, 30_000);

  it("an agent request survives a kill -9 of the orchestrator mid-delegation, and the resumed requester reattaches to it", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "goondan-marker-")), "slept");
    defer(() => rmSync(marker, { force: true }));
    const f = await fixture((request) => {
      const worker = systemPrompt(request).includes("ROLE=worker");
      if (lastRole(request) === "tool")
        return {
          text: worker ? "worker done" : `coordinator got ${JSON.stringify(toolResults(request).at(-1)?.content)}`,
        };
      return worker
        ? { toolCalls: [{ name: "slow__sleep", args: { ms: 3000, marker } }] }
        : { toolCalls: [{ name: "agents__request", args: { target: "worker", input: "work" } }] };
    });
    const first = await startDaemon({ dir: f.dir, stateRoot: f.stateRoot });
    const accepted = (await (
      await fetch(`${first.base}/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "delegate" }),
      })
    ).json()) as { eventId: string };
    await until(() => existsSync(marker));
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    expect(
      (await unansweredEvents({ stateRoot: f.stateRoot, swarm: "duo", agent: "worker" })).map(
        (record) => record.event.type,
      ),
    ).toEqual(["agent.request"]);

    const second = await startDaemon({ dir: f.dir, stateRoot: f.stateRoot });
    const completed = await until(async () => {
      const response = await fetch(`${second.base}/v1/instances/coordinator/duo/events`);
      if (response.status !== 200) return false;
      const body = (await response.json()) as { events: { type?: string; eventId?: string }[] };
      return body.events.some((event) => event.type === "turn.completed" && event.eventId === accepted.eventId);
    });
    expect(completed).toBe(true);
    expect(JSON.stringify(f.llm.requests.at(-1)?.body.messages)).toContain("worker done");
    // Once, as the reattached call's result: not a second time as if it answered an async request.
    expect(JSON.stringify(f.llm.requests.at(-1)?.body.messages)).not.toContain("[async reply");
    // Reattached, not sent again: the worker was asked once, and its redelivered turn was told its sleep was interrupted.
    const workerFirstAsks = f.llm.requests.filter(
      (request) => systemPrompt(request).includes("ROLE=worker") && lastRole(request) === "user",
    );
    expect(workerFirstAsks).toHaveLength(1);
    second.proc.kill("SIGTERM");
    expect(await second.proc.exited).toBe(0);
  }, 30_000);

  it("--input prints only the reply on stdout and exits 0", async () => {
    const f = await fixture(() => ({ text: "the single reply" }));
    const proc = spawnGoondan(["run", f.dir, "--state-root", f.stateRoot, "--input", "hi"]);
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(stdout).toBe("the single reply\n");
  }, 20_000);

  it("--input exits 1 when the turn fails", async () => {
    const f = await fixture(() => ({
      fail: { status: 400, body: JSON.stringify({ error: { message: "bad request", type: "invalid_request_error" } }) },
    }));
    const proc = spawnGoondan(["run", f.dir, "--state-root", f.stateRoot, "--input", "hi"]);
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(1);
    expect(stderr).toContain("turn failed");
  }, 20_000);

  it("exits 3 with the issues for an invalid bundle and for a missing env var", async () => {
    const f = await fixture(() => undefined);
    const invalid = spawnGoondan(["run", join(f.dir, "nope"), "--state-root", f.stateRoot, "--port", "0"]);
    expect(await invalid.exited).toBe(3);
    const missing = spawnGoondan(["run", f.dir, "--state-root", f.stateRoot, "--port", "0"], { LOOPBACK_API_KEY: "" });
    const [stderr, code] = await Promise.all([new Response(missing.stderr).text(), missing.exited]);
    expect(code).toBe(3);
    expect(stderr).toContain("E_CONFIG_ENV_MISSING");
    expect(stderr).toContain("LOOPBACK_API_KEY");
  }, 20_000);

  it("exits 1 with E_RUN_LISTEN when the port is taken", async () => {
    const f = await fixture(() => undefined);
    const taken = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    defer(() => void taken.stop(true));
    const proc = spawnGoondan(["run", f.dir, "--state-root", f.stateRoot, "--port", String(taken.port)]);
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(1);
    expect(stderr).toContain("cannot listen");
  }, 20_000);

  it("guards the API with GOONDAN_API_TOKEN, and goondan ps prints the process table with it", async () => {
    const f = await fixture(() => ({ text: "hello" }));
    const env = { GOONDAN_API_TOKEN: "tok-123", UNRELATED_API_KEY: "sk-not-for-agents" };
    const daemon = await startDaemon({ dir: f.dir, stateRoot: f.stateRoot, env });
    expect((await fetch(`${daemon.base}/v1/processes`)).status).toBe(401);
    const answered = await fetch(`${daemon.base}/v1/events`, {
      method: "POST",
      headers: { authorization: "Bearer tok-123", "content-type": "application/json" },
      body: JSON.stringify({ input: "hi", wait: true }),
    });
    expect(await answered.json()).toMatchObject({
      status: "ok",
      response: "hello",
      agent: "coordinator",
      instanceKey: "duo",
    });
    // The agent child starts with the basics and its own model key only: not the API token, not other keys.
    const listed = (await (
      await fetch(`${daemon.base}/v1/processes`, { headers: { authorization: "Bearer tok-123" } })
    ).json()) as { processes: { agent: string; pid: number }[] };
    const childPid = listed.processes.find((row) => row.agent === "coordinator")?.pid as number;
    // Agents make themselves non-dumpable (tools/hide-process-secrets.ts): only root can read their environ.
    if (process.getuid?.() === 0) {
      const childEnv = readFileSync(`/proc/${childPid}/environ`, "utf8").split("\0");
      expect(childEnv.some((entry) => entry.startsWith("PATH="))).toBe(true);
      expect(childEnv.some((entry) => entry.includes("tok-123") || entry.includes("sk-not-for-agents"))).toBe(false);
    } else {
      expect(() => readFileSync(`/proc/${childPid}/environ`, "utf8")).toThrow(/EACCES/);
    }
    const ps = spawnGoondan(["ps", "--port", String(daemon.port)], env);
    const [table, code] = await Promise.all([new Response(ps.stdout).text(), ps.exited]);
    expect(code).toBe(0);
    expect(table.split("\n")[0]).toMatch(/^KIND\s+AGENT\s+INSTANCE\s+PID\s+INSTANCES\s+STATUS/);
    expect(table).toMatch(/agent\s+coordinator\s+duo\s+\d+\s+1\s+idle/);
    const denied = spawnGoondan(["ps", "--port", String(daemon.port)], { GOONDAN_API_TOKEN: "" });
    expect(await denied.exited).toBe(1);
    daemon.proc.kill("SIGTERM");
    expect(await daemon.proc.exited).toBe(0);
  }, 30_000);
});
