/**
 * goondan against three in-process peers on the same workload and the same loopback model server in one run
 * (bench/peer/loopback-server.ts, a process of its own): an entry agent delegates each request to a worker that
 * calls one echo tool, four model calls per request. goondan runs as `goondan run` with its state on disk
 * (durability on), driven through `POST /v1/events` `wait: true` (bench/peer/goondan-side.ts); each peer runs in
 * a Bun process of its own, in memory, delegation written as its docs show: `@openai/agents` (an agent as a
 * tool), `@mastra/core` (`agents: { worker }`), LangGraph JS (prebuilt ReAct agents, the worker called from a
 * tool, a `MemorySaver` thread per conversation).
 * `--conv long`: each lane is one conversation; `--conv short`: each lane starts a new conversation every 3
 * requests, on every side (goondan: a new instanceKey; a peer: a new history or thread).
 * Prints, per system: req/s over 10 lanes, sequential p50/p99, CPU ms per request (goondan: `goondan run` and every
 * process under it, from /proc, ended children included; a peer: its process), goondan's peak of live processes,
 * and the loopback server's CPU per request it served on a line of its own; then goondan's ratios against the best
 * peer of the run (CPU per request, goal <= 1.0x; req/s, goal >= 1.5x; p50, goal <= 1.0x). `--runs N` repeats the
 * whole comparison and ends with min / median / max of every figure.
 * `--isolation agent|instance|both` writes `process: { isolation: X }` into both Agents' specs (both: goondan is
 * measured once in each mode); without it the field is left out (the runtime's default).
 * Usage: bun bench/peer-compare.ts [--sequential N] [--requests N] [--conv short|long] [--runs N]
 *        [--isolation agent|instance|both] [--peers openai-agents,mastra,langgraph] [--state-root DIR]
 */
import { readFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { flag } from "./support/flag.ts";
import { processCpuMs } from "./support/process-cpu.ts";
import { measureGoondan } from "./peer/goondan-side.ts";
import { perConversation, type PeerFigures } from "./peer/peer-harness.ts";
import { formatRatios, formatRow, ratios, summaryLines, toRow, type Ratios, type Row } from "./peer/peer-summary.ts";

const SEQUENTIAL = Number(flag("sequential", "100"));
const REQUESTS = Number(flag("requests", "400"));
const RUNS = Number(flag("runs", "1"));
const CONV = flag("conv", "long");
const LANES = 10;
const here = (path: string): string => new URL(path, import.meta.url).pathname;

const PEERS: Record<string, { script: string; pkg: string }> = {
  "openai-agents": { script: "./peer/openai-agents-run.ts", pkg: "@openai/agents" },
  mastra: { script: "./peer/mastra-run.ts", pkg: "@mastra/core" },
  langgraph: { script: "./peer/langgraph-run.ts", pkg: "@langchain/langgraph" },
};
const peers = flag("peers", Object.keys(PEERS).join(","))
  .split(",")
  .map((name) => {
    const peer = PEERS[name];
    if (peer === undefined) throw new Error(`--peers: unknown peer ${name} (known: ${Object.keys(PEERS).join(", ")})`);
    return peer;
  });
const isolationFlag = flag("isolation", "");
const isolations: (string | undefined)[] =
  isolationFlag === "" ? [undefined] : isolationFlag === "both" ? ["agent", "instance"] : [isolationFlag];
for (const isolation of isolations)
  if (isolation !== undefined && isolation !== "agent" && isolation !== "instance")
    throw new Error(`--isolation expects agent, instance or both, got ${isolationFlag}`);
const per = perConversation(CONV);

const version = (pkg: string): string =>
  (JSON.parse(readFileSync(here(`../node_modules/${pkg}/package.json`), "utf8")) as { version: string }).version;

async function measurePeer(script: string, url: string): Promise<PeerFigures> {
  const argv = ["--url", url, "--sequential", String(SEQUENTIAL), "--lanes", String(LANES)];
  argv.push("--requests", String(REQUESTS), "--conv", CONV);
  const child = Bun.spawn([process.execPath, here(script), ...argv], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`the peer run ${script} failed`);
  return JSON.parse(out.trim().split("\n").pop() ?? "{}") as PeerFigures;
}

const server = Bun.spawn([process.execPath, here("./peer/loopback-server.ts")], { stdout: "pipe", stderr: "inherit" });
const first = new TextDecoder().decode((await server.stdout.getReader().read()).value);
const { url } = JSON.parse(first.split("\n")[0] ?? "{}") as { url: string };
const stateParent = flag("state-root", tmpdir());
const loadAverage = (): string =>
  os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(" ");

/** Runs `measure` and returns its figures with the loopback server's CPU over it. */
async function withServerCpu<T>(measure: () => Promise<T>): Promise<{ figures: T; serverCpuMs: number }> {
  const before = processCpuMs(server.pid);
  const figures = await measure();
  return { figures, serverCpuMs: processCpuMs(server.pid) - before };
}

console.log(
  `peer-compare: load average ${loadAverage()}; ${os.cpus().length} CPUs; --conv ${CONV} (${per === Number.POSITIVE_INFINITY ? "one conversation per lane" : `a new conversation every ${per} requests`}); ${SEQUENTIAL} sequential requests, ${REQUESTS} over ${LANES} lanes, 4 model calls each; ${RUNS} run(s); state root under ${stateParent}`,
);
const rows = new Map<string, Row[]>();
const ratioRuns = new Map<string, Ratios[]>();
const keep = <T>(map: Map<string, T[]>, label: string, value: T): void => {
  map.set(label, [...(map.get(label) ?? []), value]);
};
try {
  for (let run = 1; run <= RUNS; run += 1) {
    console.log(`run ${run}/${RUNS} (load average ${loadAverage()})`);
    const goondanRows: [string, Row][] = [];
    for (const isolation of isolations) {
      const label = `goondan${isolation === undefined ? "" : ` isolation: ${isolation}`}`;
      const { figures, serverCpuMs } = await withServerCpu(() =>
        measureGoondan({
          url,
          stateParent,
          sequential: SEQUENTIAL,
          requests: REQUESTS,
          lanes: LANES,
          perConversation: per,
          ...(isolation === undefined ? {} : { isolation }),
        }),
      );
      const row = toRow(figures, serverCpuMs, figures.sent, figures.peakProcesses);
      console.log(formatRow(label, row));
      goondanRows.push([label, row]);
      keep(rows, label, row);
    }
    const peerRows: Row[] = [];
    const server: string[] = goondanRows.map(([label, row]) => `${label} ${row.serverCpu.toFixed(2)}`);
    for (const peer of peers) {
      const label = `${peer.pkg} ${version(peer.pkg)}`;
      const { figures, serverCpuMs } = await withServerCpu(() => measurePeer(peer.script, url));
      const row = toRow(figures, serverCpuMs, 20 + SEQUENTIAL + figures.lanes.requests);
      console.log(formatRow(label, row));
      peerRows.push(row);
      server.push(`${label} ${row.serverCpu.toFixed(2)}`);
      keep(rows, label, row);
    }
    console.log(`  loopback server CPU ms per request it served (warm-up included): ${server.join(", ")}`);
    for (const [label, row] of goondanRows) {
      const value = ratios(row, peerRows);
      console.log(formatRatios(label, value));
      keep(ratioRuns, label, value);
    }
  }
  if (RUNS > 1) {
    console.log(`summary over ${RUNS} runs, min / median / max (load average ${loadAverage()}):`);
    for (const line of summaryLines(rows, ratioRuns)) console.log(line);
  }
} finally {
  server.kill("SIGTERM");
}
