/**
 * Real `goondan run --cluster` nodes for the cluster integration tests: a copy of the cluster-swarm fixture with the
 * test's own swarm name (so its NATS buckets and stream are its own and are removed afterwards), a loopback LLM
 * playing a coordinator that delegates jobs to workers and a worker that appends each job to a file or requests the
 * coordinator back (or any other model: `respond`), and a way to start a node with its own state root (and, with
 * `bundlePerNode`, its own copy of the bundle, as on separate hosts).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Defer } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, startGoondanRun, type GoondanProcess } from "../helpers/goondan-process.ts";
import { delegationModel } from "../helpers/delegation-model.ts";
import { startLoopbackLlm, type LoopbackReply, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { NATS_URL, removeSwarmAfter, testSwarm } from "../helpers/nats.ts";
import { killChild } from "../helpers/cleanups.ts";

const FIXTURE = new URL("../fixtures/cluster-swarm", import.meta.url).pathname;

export interface ClusterSwarm {
  swarm: string;
  work: string;
  effectsFile: string;
  /** The bundle directory node `name` runs (`<work>/bundle`, or `<work>/bundle-<name>` with `bundlePerNode`). */
  bundleDir(name: string): string;
  /** Starts node `name` (state root `<work>/state-<name>`); killed after the test if still running. */
  startNode(name: string, options?: { url?: string }): Promise<ClusterNodeProcess>;
  /** Runs node `name` expecting it to exit (refused): its exit code and stderr. */
  refusedNode(name: string): Promise<{ exitCode: number | null; stderr: string }>;
}

export interface ClusterNodeProcess {
  name: string;
  proc: GoondanProcess;
  base: string;
  lines: Record<string, unknown>[];
}

export interface ClusterSwarmOptions {
  label: string;
  workers?: number;
  ttlMs?: number;
  delayMs?: () => number;
  /** The loopback LLM's model. Default: the delegation model (test/helpers/delegation-model.ts). */
  respond?: (request: LoopbackRequest) => LoopbackReply;
  /** Each node runs its own copy of the bundle, made when it first starts. Default false: one shared directory. */
  bundlePerNode?: boolean;
  /** More environment for every node (e.g. GOONDAN_CLUSTER_SNAPSHOT_RECORDS). */
  env?: Record<string, string>;
  /** More YAML documents for the bundle (a Connection, …), placeholders replaced like the fixture's. */
  documents?: string;
  /** More agents for the Swarm (declared in `documents`), e.g. `["waiter"]`. */
  agents?: string[];
}

export async function clusterSwarm(defer: Defer, options: ClusterSwarmOptions): Promise<ClusterSwarm> {
  const swarm = testSwarm(options.label);
  removeSwarmAfter(defer, swarm);
  const work = mkdtempSync(join(tmpdir(), "goondan-cluster-"));
  defer(() => rmSync(work, { recursive: true, force: true }));
  const effectsFile = join(work, "effects.txt");
  const respond = options.respond ?? delegationModel({ effectsFile, workers: options.workers ?? 4 });
  const llm = await startLoopbackLlm({
    respond: (request) => ({ ...respond(request), delayMs: options.delayMs?.() ?? 0 }),
  });
  defer(() => llm.close());
  const dir = join(work, "bundle");
  cpSync(FIXTURE, dir, { recursive: true });
  const yaml = join(dir, "goondan.yaml");
  const documents = options.documents === undefined ? "" : `---\n${options.documents}`;
  const agents = (options.agents ?? []).map((agent) => `, Agent/${agent}`).join("");
  writeFileSync(
    yaml,
    `${readFileSync(yaml, "utf8")}${documents}`
      .replaceAll("__ENDPOINT__", llm.url)
      .replaceAll("__SWARM__", swarm)
      .replace("agents: [Agent/coordinator, Agent/worker]", `agents: [Agent/coordinator, Agent/worker${agents}]`),
  );
  const bundleDir = (name: string) => {
    if (options.bundlePerNode !== true) return dir;
    const own = join(work, `bundle-${name}`);
    if (!existsSync(own)) cpSync(dir, own, { recursive: true });
    return own;
  };
  const args = (name: string, url = NATS_URL) => [
    bundleDir(name),
    "--port",
    "0",
    "--state-root",
    join(work, `state-${name}`),
    "--cluster",
    url,
    "--node",
    name,
  ];
  const env = {
    LOOPBACK_API_KEY: "cluster",
    GOONDAN_LOG_LEVEL: "info",
    CHAOS_EFFECTS_FILE: effectsFile,
    GOONDAN_CLUSTER_LEASE_TTL_MS: String(options.ttlMs ?? 10_000),
    ...options.env,
  };
  return {
    swarm,
    work,
    effectsFile,
    bundleDir,
    refusedNode: async (name) => {
      const proc = Bun.spawn([process.execPath, GOONDAN_BIN, "run", ...args(name)], {
        env: { ...process.env, ...env },
        stdout: "ignore",
        stderr: "pipe",
        stdin: "ignore",
      });
      const timer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
      const stderr = await new Response(proc.stderr).text();
      const exitCode = await proc.exited;
      clearTimeout(timer);
      return { exitCode, stderr };
    },
    startNode: async (name, nodeOptions = {}) => {
      const started = await startGoondanRun({
        args: args(name, nodeOptions.url),
        env,
        readyTimeoutMs: 60_000,
        onSpawn: (proc) => defer(killChild(proc)),
      });
      return { name, ...started };
    },
  };
}

/** POST /v1/events with `wait: true`: the turn's outcome (status and body). */
export async function ask(
  base: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}/v1/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ wait: true, timeoutMs: 60_000, ...body }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export interface ClusterProcessRow {
  node: string;
  kind: string;
  agent: string;
  instanceKey: string;
  pid: number | null;
}

export async function clusterProcesses(base: string): Promise<ClusterProcessRow[]> {
  const response = await fetch(`${base}/v1/processes`);
  return ((await response.json()) as { processes: ClusterProcessRow[] }).processes;
}
