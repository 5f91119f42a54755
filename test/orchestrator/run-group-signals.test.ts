/**
 * `goondan run` as the leader of its own process group (setsid), the way a shell runs it in a terminal:
 * Ctrl+C (SIGINT) or `kill -TERM -<pgid>` reaches the agent children too. The in-flight turn still
 * completes, no child is respawned during shutdown, the orchestrator exits 0 and no child is left.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLoopbackLlm, toolResults, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { childEnv, lastRole, writeSwarmBundle } from "../fixtures/orchestrator/real-swarm.ts";
import { readStateRootLock, stateRootLockPath } from "../../src/orchestrator/state-root-lock.ts";

const BIN = new URL("../../bin/goondan", import.meta.url).pathname;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await Bun.sleep(25);
  }
}

/** Starts `setsid goondan run` (its own process group, pgid = its pid) and resolves once it logged `ready`. */
async function startGroupLeader(marker: string) {
  const llm = await startLoopbackLlm({
    respond: (request: LoopbackRequest) =>
      lastRole(request) === "tool" ? { text: `done after ${JSON.stringify(toolResults(request).at(-1)?.content)}` } : { toolCalls: [{ name: "slow__sleep", args: { ms: 1200, marker } }] },
  });
  const dir = writeSwarmBundle({ endpoint: llm.url });
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-pgrp-"));
  const proc = Bun.spawn(["setsid", process.execPath, BIN, "run", dir, "--port", "0", "--state-root", stateRoot], {
    env: { ...process.env, ...childEnv, GOONDAN_LOG_LEVEL: "info" },
    stdout: "pipe",
    stderr: "ignore",
    stdin: "ignore",
  });
  cleanups.push(async () => {
    if (proc.exitCode === null && proc.signalCode === null) process.kill(-proc.pid, "SIGKILL");
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  });
  const lines: Record<string, unknown>[] = [];
  const reader = proc.stdout.getReader();
  let buffer = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line; got ${JSON.stringify(lines)}`)), 15_000);
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += new TextDecoder().decode(value);
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          try {
            const record = JSON.parse(line) as Record<string, unknown>;
            lines.push(record);
            if (record.msg === "ready") {
              clearTimeout(timer);
              resolve(record.port as number);
            }
          } catch {
            // a non-JSON line; ignore
          }
        }
      }
    })();
  });
  return { proc, lines, port, stateRoot, base: `http://127.0.0.1:${port}` };
}

async function signalTheGroupMidTurn(signal: "SIGINT" | "SIGTERM") {
  const marker = join(mkdtempSync(join(tmpdir(), "goondan-marker-")), "slept");
  cleanups.push(() => rmSync(marker, { force: true }));
  const daemon = await startGroupLeader(marker);
  // While it runs, the state root names its owner (for `goondan instance delete`).
  expect(readStateRootLock(daemon.stateRoot)).toMatchObject({ pid: daemon.proc.pid, port: daemon.port, host: "127.0.0.1" });
  const waiting = fetch(`${daemon.base}/v1/events`, { method: "POST", body: JSON.stringify({ input: "slow please", wait: true }) });
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
