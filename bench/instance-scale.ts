/**
 * Many instances of one agent on one host: starts `goondan run` (one agent, no tools, the loopback LLM answering
 * each turn with one text reply, state on disk), creates N instances, each with one turn through `POST /v1/events`
 * `wait: true` (C at a time), and then reports the memory of `goondan run` and every process under it (RSS and PSS
 * from /proc, summed), per instance and per live process, and the orchestrator's own growth per instance. Then it
 * times placing an instance: K new instances' first requests, in blocks of ten, each block followed by the second
 * request of each instance it placed (warm: live, one turn of history, so that a conversation's length weighs on
 * neither side; a single warm instance asked K times would carry K turns and flatter the first request); the figure
 * is p50(first request of a new instance) - p50(warm request), and the CPU of goondan's processes per request of
 * each kind.
 * Bounded: the fill stops at `--max-seconds` (the report says how many instances were made).
 * `--isolation agent|instance` writes `process: { isolation: X }` into the Agent's spec (left out by default);
 * `--max-instances M` sets `spec.policy.lifecycle.maxInstances`, `--per-process P` the Agent's
 * `process.maxInstancesPerProcess` (the runtime's defaults otherwise).
 * Usage: bun bench/instance-scale.ts [--instances N] [--concurrency C] [--placements K] [--max-seconds S]
 *        [--isolation agent|instance] [--max-instances M] [--per-process P] [--state-root DIR]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import { startLoopbackLlm } from "../test/helpers/loopback-llm.ts";
import { startGoondanRun } from "../test/helpers/goondan-process.ts";
import { flag } from "./support/flag.ts";
import { processTreeCpuMs } from "./support/process-cpu.ts";
import { percentile } from "./support/percentile.ts";
import { processTree, rssKb } from "./support/process-tree.ts";

const INSTANCES = Number(flag("instances", "1000"));
const CONCURRENCY = Number(flag("concurrency", "8"));
const PLACEMENTS = Number(flag("placements", "30"));
const MAX_SECONDS = Number(flag("max-seconds", "300"));
const ISOLATION = flag("isolation", "");
const MAX_INSTANCES = flag("max-instances", "");
const PER_PROCESS = flag("per-process", "");

function pssKb(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

function memory(root: number): { processes: number; rssKb: number; pssKb: number; rootRssKb: number } {
  const pids = processTree(root);
  return {
    processes: pids.length,
    rssKb: pids.reduce((sum, pid) => sum + rssKb(pid), 0),
    pssKb: pids.reduce((sum, pid) => sum + pssKb(pid), 0),
    rootRssKb: rssKb(root),
  };
}

const llm = await startLoopbackLlm({ respond: () => ({ text: "ok" }) });
// The recorded requests would grow with every call: keep none.
const clearing = setInterval(() => {
  llm.requests.length = 0;
}, 1_000);
const dir = mkdtempSync(join(tmpdir(), "goondan-scale-bundle-"));
const stateRoot = mkdtempSync(join(flag("state-root", tmpdir()), "goondan-scale-state-"));
const processSpec = [
  ...(ISOLATION === "" ? [] : [`isolation: ${ISOLATION}`]),
  ...(PER_PROCESS === "" ? [] : [`maxInstancesPerProcess: ${PER_PROCESS}`]),
];
const processField = processSpec.length === 0 ? "" : `, process: { ${processSpec.join(", ")} }`;
const policy = MAX_INSTANCES === "" ? "" : `, policy: { lifecycle: { maxInstances: ${MAX_INSTANCES} } }`;
const docs = [
  `kind: Model\nmetadata: { name: loopback }\nspec: { provider: openai-compatible, model: loopback-model, endpoint: "${llm.url}", apiKey: { valueFrom: { env: LOOPBACK_API_KEY } } }`,
  `kind: Agent\nmetadata: { name: solo }\nspec: { modelConfig: { modelRef: Model/loopback }, prompt: { system: "You answer." }${processField} }`,
  `kind: Swarm\nmetadata: { name: scale }\nspec: { entryAgent: Agent/solo, agents: [Agent/solo]${policy} }`,
];
writeFileSync(join(dir, "goondan.yaml"), docs.map((doc) => `apiVersion: goondan.ai/v1\n${doc}\n`).join("---\n"));

const daemon = await startGoondanRun({
  args: [dir, "--port", "0", "--state-root", stateRoot],
  env: { LOOPBACK_API_KEY: "loopback" },
  stderr: "ignore",
});

async function turn(instanceKey: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${daemon.base}/v1/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: "hello", instanceKey, wait: true }),
  });
  const body = (await response.json()) as { status?: string };
  if (response.status !== 200 || body.status !== "ok")
    throw new Error(`goondan answered ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  return performance.now() - started;
}

/** Instances the orchestrator lists, and how many of them a process holds now (a `pid`). */
async function listed(): Promise<{ total: number; held: number }> {
  const response = await fetch(`${daemon.base}/v1/instances`);
  const body = (await response.json()) as { instances?: { pid?: number }[] };
  const rows = body.instances ?? [];
  return { total: rows.length, held: rows.filter((row) => row.pid !== undefined).length };
}

const mib = (kb: number): string => `${(kb / 1024).toFixed(1)} MiB`;
try {
  const idle = memory(daemon.proc.pid);
  console.log(
    `instance-scale: load average ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(
        " ",
      )}; ${INSTANCES} instances, ${CONCURRENCY} at a time, at most ${MAX_SECONDS} s; isolation ${ISOLATION || "(field left out)"}; maxInstances ${MAX_INSTANCES || "(default)"}; maxInstancesPerProcess ${PER_PROCESS || "(default)"}`,
  );
  console.log(`  idle: ${idle.processes} process(es), RSS ${mib(idle.rssKb)}, PSS ${mib(idle.pssKb)}`);
  const deadline = performance.now() + MAX_SECONDS * 1000;
  let made = 0;
  let peakProcesses = 0;
  const fillMs: number[] = [];
  const started = performance.now();
  const sampler = setInterval(() => {
    peakProcesses = Math.max(peakProcesses, processTree(daemon.proc.pid).length);
  }, 500);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (made < INSTANCES && performance.now() < deadline) {
        const key = `i-${made}`;
        made += 1;
        fillMs.push(await turn(key));
      }
    }),
  );
  clearInterval(sampler);
  const fillSeconds = (performance.now() - started) / 1000;
  await Bun.sleep(2_000);
  const full = memory(daemon.proc.pid);
  const instances = await listed();
  const stopped = made < INSTANCES ? ` (stopped by --max-seconds ${MAX_SECONDS})` : "";
  console.log(
    `  ${made} instances made in ${fillSeconds.toFixed(1)} s${stopped}: ${(made / fillSeconds).toFixed(1)} instances/s; first turn p50 ${percentile(fillMs, 50).toFixed(1)} ms, p99 ${percentile(fillMs, 99).toFixed(1)} ms at ${CONCURRENCY} at a time; peak ${peakProcesses} processes`,
  );
  console.log(
    `  then: ${full.processes} live process(es), total RSS ${mib(full.rssKb)}, PSS ${mib(full.pssKb)}; orchestrator RSS ${mib(full.rootRssKb)} (+${mib(full.rootRssKb - idle.rootRssKb)})`,
  );
  console.log(
    `  listed: ${instances.total} instances, ${instances.held} held by a live process (RSS per held instance ${mib(full.rssKb / Math.max(1, instances.held))})`,
  );
  console.log(
    `  per instance made: RSS ${mib(full.rssKb / made)}, PSS ${mib(full.pssKb / made)}, orchestrator growth ${((full.rootRssKb - idle.rootRssKb) / made).toFixed(1)} KiB; per live process: RSS ${mib(full.rssKb / full.processes)}, PSS ${mib(full.pssKb / full.processes)}`,
  );
  await turn("warm");
  const firstMs: number[] = [];
  const warmMs: number[] = [];
  const cpu = { first: 0, warm: 0 };
  // CPU is read from /proc in clock ticks (10 ms): it is read around blocks of BLOCK requests of one kind, the
  // kinds alternating block by block, so that a tick's rounding weighs little on each block's figure.
  const BLOCK = 10;
  const timedBlock = async (into: "first" | "warm", keys: string[], times: number[]): Promise<void> => {
    const before = processTreeCpuMs(daemon.proc.pid);
    for (const key of keys) times.push(await turn(key));
    cpu[into] += processTreeCpuMs(daemon.proc.pid) - before;
  };
  for (let i = 0; i < PLACEMENTS && performance.now() < deadline + 60_000; i += BLOCK) {
    const placed = Array.from({ length: Math.min(BLOCK, PLACEMENTS - i) }, (_, j) => `placed-${i + j}`);
    await timedBlock("first", placed, firstMs);
    await timedBlock("warm", placed, warmMs);
  }
  const first = percentile(firstMs, 50);
  const warm = percentile(warmMs, 50);
  console.log(
    `  placing an instance (${firstMs.length} new instances, one at a time): first request p50 ${first.toFixed(2)} ms, warm request p50 ${warm.toFixed(2)} ms, placement ${(first - warm).toFixed(2)} ms (first/warm ${(first / warm).toFixed(2)}x); CPU of goondan's processes per request: first ${(cpu.first / firstMs.length).toFixed(1)} ms, warm ${(cpu.warm / warmMs.length).toFixed(1)} ms (${(cpu.first / Math.max(cpu.warm, 1)).toFixed(2)}x)`,
  );
} finally {
  clearInterval(clearing);
  daemon.proc.kill("SIGTERM");
  await daemon.proc.exited;
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(stateRoot, { recursive: true, force: true });
}
