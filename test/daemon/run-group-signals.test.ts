/**
 * `goondan run` as the leader of its own process group (setsid), the way a shell runs it in a terminal:
 * Ctrl+C (SIGINT) or `kill -TERM -<pgid>` reaches the agent children too. The in-flight turn still
 * completes, no child is respawned during shutdown, the orchestrator exits 0 and no child is left.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLoopbackLlm, toolResults, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { childEnv, lastRole, writeSwarmBundle } from "../fixtures/orchestrator/real-swarm.ts";
import { readStateRootLock, stateRootLockPath } from "../../src/daemon/state-root-lock.ts";
import { isAlive, startGoondanRun, until } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();

const alive = isAlive;

/** Starts `setsid goondan run` (its own process group, pgid = its pid) and resolves once it logged `ready`. */
async function startGroupLeader(marker: string) {
  const llm = await startLoopbackLlm({
    respond: (request: LoopbackRequest) =>
      lastRole(request) === "tool"
        ? { text: `done after ${JSON.stringify(toolResults(request).at(-1)?.content)}` }
        : { toolCalls: [{ name: "slow__sleep", args: { ms: 1200, marker } }] },
  });
  const dir = writeSwarmBundle({ endpoint: llm.url });
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-pgrp-"));
  const { proc, lines, port, base } = await startGoondanRun({
    prefix: ["setsid"],
    args: [dir, "--port", "0", "--state-root", stateRoot],
    env: { ...childEnv, GOONDAN_LOG_LEVEL: "debug" },
    stderr: "ignore",
    onSpawn: (spawned) =>
      defer(async () => {
        if (spawned.exitCode === null && spawned.signalCode === null) process.kill(-spawned.pid, "SIGKILL");
        await llm.close();
        rmSync(dir, { recursive: true, force: true });
        rmSync(stateRoot, { recursive: true, force: true });
      }),
  });
  return { proc, lines, port, stateRoot, base };
}

async function signalTheGroupMidTurn(signal: "SIGINT" | "SIGTERM") {
  const marker = join(mkdtempSync(join(tmpdir(), "goondan-marker-")), "slept");
  defer(() => rmSync(marker, { force: true }));
  const daemon = await startGroupLeader(marker);
  // While it runs, the state root names its owner (for `goondan instance delete`).
  expect(readStateRootLock(daemon.stateRoot)).toMatchObject({
    pid: daemon.proc.pid,
    port: daemon.port,
    host: "127.0.0.1",
  });
  const waiting = fetch(`${daemon.base}/v1/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: "slow please", wait: true }),
  });
  await until(() => existsSync(marker));
  const body = (await (await fetch(`${daemon.base}/v1/processes`)).json()) as { processes: { pid: number | null }[] };
  const pids = body.processes.flatMap((row) => (row.pid === null ? [] : [row.pid]));
  expect(pids.length).toBe(1);
  process.kill(-daemon.proc.pid, signal);
  const response = await waiting;
  return { daemon, pids, response };
}

describe("goondan run in its own process group", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} to the whole group lets the in-flight turn complete, respawns nothing and exits 0 with no child left`, async () => {
      const { daemon, pids, response } = await signalTheGroupMidTurn(signal);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: "ok", response: expect.stringContaining("done after") });
      expect(await daemon.proc.exited).toBe(0);
      expect(existsSync(stateRootLockPath(daemon.stateRoot))).toBe(false);
      expect(pids.filter(alive)).toEqual([]);
      const messages = daemon.lines.map((line) => line.msg);
      expect(messages).not.toContain("instance.crashed");
      expect(daemon.lines.filter((line) => line.msg === "instance.ready")).toHaveLength(1);
    }, 30_000);
  }
});
