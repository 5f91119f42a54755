/**
 * What reading the whole cluster costs, with real `goondan run` processes on the local NATS and a loopback LLM that
 * answers at once:
 *
 *   bun bench/cluster-view.ts [--jobs N] [--reads N]
 *
 * The same jobs (N coordinators, each delegating to a worker: 2N instances) run on one host and on two cluster nodes;
 * then each read route is timed through one host's API (the floor: the same read from one embedded store, in the same
 * run) and through n1 of the cluster (every node asked over NATS and the answers merged), p50/p99, and the ratio:
 *   GET /v1/instances, GET /v1/runtime-events?limit=100, an instance's events, and a conversation of an instance that
 *   runs on the other node (asked of its lease holder).
 * A raw NATS request/reply between two processes is measured too, as the wire's own floor.
 * Each run uses a swarm of its own and deletes its NATS streams and buckets at the end.
 */
import { startGoondanRun } from "../test/helpers/goondan-process.ts";
import { ask, clusterProcesses, clusterSwarm } from "../test/cluster/cluster-swarm.ts";
import { NATS_URL } from "../test/helpers/nats.ts";
import { benchCleanups, requireNats, startNatsFloor } from "./support/nats-bench.ts";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";

const JOBS = Number(flag("jobs", "20"));
const READS = Number(flag("reads", "200"));

requireNats();
const { defer, runCleanups } = benchCleanups();
const ms = (value: number) => `${value.toFixed(2)} ms`;

async function sample(url: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < READS; i++) {
    const started = performance.now();
    const response = await fetch(url);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    samples.push(performance.now() - started);
  }
  return samples;
}

function compare(label: string, floor: number[], clustered: number[]): void {
  const p50 = (samples: number[]) => percentile(samples, 50);
  const p99 = (samples: number[]) => percentile(samples, 99);
  console.log(
    `  ${label.padEnd(44)} one host p50 ${ms(p50(floor)).padStart(9)} p99 ${ms(p99(floor)).padStart(9)} | cluster p50 ${ms(p50(clustered)).padStart(9)} p99 ${ms(p99(clustered)).padStart(9)} | p50 ×${(p50(clustered) / p50(floor)).toFixed(2)} (+${ms(p50(clustered) - p50(floor))})`,
  );
}

async function natsFloor(): Promise<number[]> {
  const floor = await startNatsFloor();
  defer(() => floor.stop());
  return floor.sample(READS);
}

try {
  console.log(
    `cluster view bench: ${JOBS} jobs (${JOBS * 2} instances), ${READS} reads per route, NATS at ${NATS_URL}`,
  );
  const wire = await natsFloor();
  console.log(
    `  floor: NATS request/reply between two processes  p50 ${ms(percentile(wire, 50))}  p99 ${ms(percentile(wire, 99))}`,
  );

  const single = await clusterSwarm(defer, { label: "view1", workers: JOBS });
  const host = await startGoondanRun({
    args: [`${single.work}/bundle`, "--port", "0", "--state-root", `${single.work}/state-local`],
    env: { LOOPBACK_API_KEY: "x", CHAOS_EFFECTS_FILE: single.effectsFile, GOONDAN_LOG_LEVEL: "info" },
    readyTimeoutMs: 60_000,
    onSpawn: (proc) => defer(() => proc.kill("SIGKILL")),
  });
  const cluster = await clusterSwarm(defer, { label: "view2", workers: JOBS });
  const n1 = await cluster.startNode("n1");
  await cluster.startNode("n2");
  for (let i = 0; i < JOBS; i++) {
    const [local, clustered] = await Promise.all([
      ask(host.base, { input: `job-${i}`, instanceKey: `c-${i}` }),
      ask(n1.base, { input: `job-${i}`, instanceKey: `c-${i}` }),
    ]);
    if (local.status !== 200 || clustered.status !== 200)
      throw new Error(`job-${i} failed: ${local.status} ${clustered.status}`);
  }
  const elsewhere = (await clusterProcesses(n1.base)).find(
    (row) => row.kind === "agent" && row.agent === "coordinator" && row.node === "n2",
  );
  if (elsewhere === undefined) throw new Error("no coordinator landed on n2");
  const key = elsewhere.instanceKey;
  console.log(`\nreads through one node's API (cluster: 2 nodes, coordinator/${key} runs on n2, read through n1)`);
  const routes: Array<[string, string]> = [
    ["GET /v1/instances", "/v1/instances"],
    ["GET /v1/runtime-events?limit=100", "/v1/runtime-events?limit=100"],
    ["GET /v1/instances/coordinator/K/events", `/v1/instances/coordinator/${key}/events`],
    ["GET /v1/instances/coordinator/K/messages", `/v1/instances/coordinator/${key}/messages`],
  ];
  for (const [label, path] of routes) {
    // Interleaved halves, so that neither side gets the quieter moment.
    const floor = await sample(`${host.base}${path}`);
    const clustered = await sample(`${n1.base}${path}`);
    compare(label, floor, clustered);
  }
} finally {
  await runCleanups();
}
