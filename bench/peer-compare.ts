/**
 * goondan against a peer, `@openai/agents` (a devDependency used only here), on the same workload and the same
 * loopback model server in one run (bench/peer/loopback-server.ts, a process of its own): an entry agent delegates
 * each request to a worker that calls one echo tool, four model calls per request, every lane carrying its
 * conversation. goondan runs as `goondan run` with its state on disk (durability on) and is driven through its
 * HTTP API (`POST /v1/events` with `wait: true`, each lane its own entry and worker instance); the peer runs in a
 * Bun process of its own (bench/peer/openai-agents-run.ts), in memory.
 * Prints sequential p50/p99 and requests/s over 10 lanes for both, and goondan's ratios (goal: req/s at least
 * 1.0x the peer's, sequential p50 at most the peer's); also the CPU each request cost (goondan: `goondan run` and its
 * agent children, from /proc; the peer: its process; the loopback server counted for neither), which a machine
 * loaded by other work distorts far less than the times.
 * Usage: bun bench/peer-compare.ts [--sequential N] [--requests N] [--rounds N] [--state-root DIR]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import { pidsWithCommandLine, startGoondanRun } from "../test/helpers/goondan-process.ts";
import { cpuMeter } from "./support/process-cpu.ts";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";

const SEQUENTIAL = Number(flag("sequential", "100"));
const REQUESTS = Number(flag("requests", "400"));
const ROUNDS = Number(flag("rounds", "2"));
const LANES = 10;
const here = (path: string): string => new URL(path, import.meta.url).pathname;

interface Figures {
  sequentialMs: number[];
  lanes: { requests: number; seconds: number };
  /** CPU ms over each phase (absent without /proc). */
  sequentialCpuMs?: number;
  lanesCpuMs?: number;
}

function writeBundle(dir: string, url: string): void {
  mkdirSync(join(dir, "tools"), { recursive: true });
  writeFileSync(
    join(dir, "tools", "echo.ts"),
    `export const handlers = { say: async (_ctx: unknown, input: { text: string }) => ({ text: input.text }) };\n`,
  );
  const docs = [
    `kind: Model\nmetadata: { name: loopback }\nspec: { provider: openai-compatible, model: loopback-model, endpoint: "${url}", apiKey: { valueFrom: { env: LOOPBACK_API_KEY } } }`,
    `kind: Tool\nmetadata: { name: echo }\nspec:\n  entry: ./tools/echo.ts\n  exports:\n    - { name: say, description: Echo the text back., parameters: { type: object, properties: { text: { type: string } }, required: [text] } }`,
    `kind: Agent\nmetadata: { name: entry }\nspec: { modelConfig: { modelRef: Model/loopback }, prompt: { system: "ROLE=entry" }, tools: [{ kind: Tool, name: agents, package: "@goondan/base" }] }`,
    `kind: Agent\nmetadata: { name: worker }\nspec: { modelConfig: { modelRef: Model/loopback }, prompt: { system: "ROLE=worker" }, tools: [Tool/echo] }`,
    `kind: Swarm\nmetadata: { name: peer }\nspec: { entryAgent: Agent/entry, agents: [Agent/entry, Agent/worker] }`,
  ];
  writeFileSync(join(dir, "goondan.yaml"), docs.map((doc) => `apiVersion: goondan.ai/v1\n${doc}\n`).join("---\n"));
}

async function goondanLane(base: string, options: { name: string; requests: number; times?: number[] }): Promise<void> {
  for (let i = 0; i < options.requests; i += 1) {
    const started = performance.now();
    const response = await fetch(`${base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: `${options.name} request ${i}`, instanceKey: options.name, wait: true }),
    });
    const body = (await response.json()) as { status?: string; output?: unknown };
    if (response.status !== 200 || body.status !== "ok")
      throw new Error(`goondan answered ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    options.times?.push(performance.now() - started);
  }
}

async function measureGoondan(url: string, stateParent: string): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), "goondan-peer-bundle-"));
  const stateRoot = mkdtempSync(join(stateParent, "goondan-peer-state-"));
  writeBundle(dir, url);
  const daemon = await startGoondanRun({
    args: [dir, "--port", "0", "--state-root", stateRoot],
    env: { LOOPBACK_API_KEY: "loopback" },
    stderr: "ignore",
  });
  try {
    await Promise.all(
      Array.from({ length: LANES }, (_, index) => goondanLane(daemon.base, { name: `lane-${index}`, requests: 2 })),
    );
    await goondanLane(daemon.base, { name: "lane-seq", requests: 20 });
    const sequentialMs: number[] = [];
    // `goondan run` and its agent children all name the state root on their command line.
    const cpu = cpuMeter(() => pidsWithCommandLine(stateRoot));
    cpu.start();
    await goondanLane(daemon.base, { name: "lane-seq", requests: SEQUENTIAL, times: sequentialMs });
    const sequentialCpuMs = cpu.stop();
    const perLane = Math.ceil(REQUESTS / LANES);
    cpu.start();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: LANES }, (_, index) =>
        goondanLane(daemon.base, { name: `lane-${index}`, requests: perLane }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const lanesCpuMs = cpu.stop();
    return {
      sequentialMs,
      lanes: { requests: perLane * LANES, seconds },
      ...(sequentialCpuMs === undefined ? {} : { sequentialCpuMs }),
      ...(lanesCpuMs === undefined ? {} : { lanesCpuMs }),
    };
  } finally {
    daemon.proc.kill("SIGTERM");
    await daemon.proc.exited;
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  }
}

async function measurePeer(url: string): Promise<Figures> {
  const child = Bun.spawn(
    [
      process.execPath,
      here("./peer/openai-agents-run.ts"),
      "--url",
      url,
      "--sequential",
      String(SEQUENTIAL),
      "--lanes",
      String(LANES),
      "--requests",
      String(REQUESTS),
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error("the peer run failed");
  return JSON.parse(out.trim().split("\n").pop() ?? "{}") as Figures;
}

const server = Bun.spawn([process.execPath, here("./peer/loopback-server.ts")], { stdout: "pipe", stderr: "inherit" });
const reader = server.stdout.getReader();
const first = new TextDecoder().decode((await reader.read()).value);
const { url } = JSON.parse(first.split("\n")[0] ?? "{}") as { url: string };
const stateParent = flag("state-root", tmpdir());
const loadAverage = (): string =>
  os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(" ");

const perRequest = (cpuMs: number | undefined, requests: number): string =>
  cpuMs === undefined ? "   n/a" : (cpuMs / requests).toFixed(2).padStart(6);
const row = (label: string, figures: Figures) => {
  const rps = figures.lanes.requests / figures.lanes.seconds;
  const cpu = `CPU/request ${perRequest(figures.sequentialCpuMs, figures.sequentialMs.length)} ms sequential, ${perRequest(figures.lanesCpuMs, figures.lanes.requests)} ms on lanes`;
  console.log(
    `  ${label.padEnd(34)} sequential p50 ${percentile(figures.sequentialMs, 50).toFixed(2).padStart(6)} ms  p99 ${percentile(figures.sequentialMs, 99).toFixed(2).padStart(6)} ms   ${rps.toFixed(0).padStart(5)} req/s over ${LANES} lanes   ${cpu}`,
  );
  return { p50: percentile(figures.sequentialMs, 50), rps };
};
console.log(
  `peer-compare: load average ${loadAverage()}; ${SEQUENTIAL} sequential requests, ${REQUESTS} requests over ${LANES} lanes, 4 model calls each, state root under ${stateParent}`,
);
try {
  for (let round = 1; round <= ROUNDS; round += 1) {
    console.log(`round ${round}`);
    const goondan = row("goondan (HTTP, state on disk)", await measureGoondan(url, stateParent));
    const peer = row("@openai/agents on Bun (in memory)", await measurePeer(url));
    console.log(
      `  load average ${loadAverage()}; goondan / peer: req/s ${(goondan.rps / peer.rps).toFixed(2)}x (goal >= 1.0x), sequential p50 ${(goondan.p50 / peer.p50).toFixed(2)}x (goal <= 1.0x)`,
    );
  }
} finally {
  server.kill("SIGTERM");
}
