/**
 * A real `goondan run` for the test/http integration tests: the orchestrator fixture swarm (coordinator and worker
 * on the loopback LLM) in a temp bundle and state root, removed after the test; `startSwarmRun` starts `goondan run`
 * on it (info logs, so its `ready` line shows) and kills it after the test, on a given port (a restart test starts
 * it again on the port the first one had), and `serveRealSwarm` does both at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv, writeSwarmBundle } from "../fixtures/orchestrator/real-swarm.ts";
import type { Defer } from "../helpers/cleanups.ts";
import { startGoondanRun } from "../helpers/goondan-process.ts";
import { startLoopbackLlm, type LoopbackLlmOptions } from "../helpers/loopback-llm.ts";
import { killChild } from "../helpers/cleanups.ts";

export async function realSwarm(options: { defer: Defer; llm?: LoopbackLlmOptions; streaming?: boolean }) {
  const llm = await startLoopbackLlm(options.llm);
  const dir = writeSwarmBundle({
    endpoint: llm.url,
    ...(options.streaming === undefined ? {} : { streaming: options.streaming }),
  });
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-http-run-"));
  options.defer(async () => {
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  });
  return { llm, dir, stateRoot };
}

/** `goondan run` on the swarm's bundle and state root, on `port` (0: any free one), killed after the test. */
export function startSwarmRun(
  swarm: { dir: string; stateRoot: string },
  options: { defer: Defer; port?: number; env?: Record<string, string> },
) {
  return startGoondanRun({
    args: [swarm.dir, "--port", String(options.port ?? 0), "--state-root", swarm.stateRoot],
    env: { ...childEnv, GOONDAN_LOG_LEVEL: "info", ...options.env },
    onSpawn: (proc) => options.defer(killChild(proc)),
  });
}

export async function serveRealSwarm(options: {
  defer: Defer;
  llm?: LoopbackLlmOptions;
  env?: Record<string, string>;
  streaming?: boolean;
}) {
  const swarm = await realSwarm(options);
  const daemon = await startSwarmRun(swarm, options);
  return { ...swarm, ...daemon };
}
