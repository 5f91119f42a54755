/**
 * The cluster's figures, with real `goondan run` processes on the local NATS and a loopback LLM that answers at once:
 *
 *   bun bench/cluster.ts [--jobs N]
 *
 * 1. floor: a raw NATS request/reply round trip between two processes (bench/nats-floor.ts's responder child);
 * 2. event acceptance: POST /v1/events → 202 on a cluster node (placed, then in the JetStream intake stream) and on
 *    one host (the embedded store's fsync), p50/p99;
 * 3. cross-node agents__request: a delegated job (HTTP event → coordinator → agents__request → worker → reply →
 *    answer) timed end to end where coordinator and worker run on different nodes, against the same job on one
 *    host; the difference is what the cluster adds to one event and one request, reported against the floor;
 * 4. failover: kill -9 of the node owning a coordinator, then a job for it on another node: time to its answer
 *    (lease TTL 3 s here; goal TTL + 1 s);
 * 5. throughput with one node and with two (jobs in parallel), and the node processes' CPU time per job (utime +
 *    stime of the `goondan run` processes from /proc, agent children not counted).
 * Each run uses a swarm of its own and deletes its NATS streams and buckets at the end.
 */
import { readFileSync } from "node:fs";
import { startGoondanRun } from "../test/helpers/goondan-process.ts";
import { ask, clusterProcesses, clusterSwarm, type ClusterNodeProcess } from "../test/cluster/cluster-swarm.ts";
import { NATS_URL, natsAvailable } from "../test/helpers/nats.ts";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";

const JOBS = Number(flag("jobs", "200"));
const FLOOR_SCRIPT = new URL("./nats-floor.ts", import.meta.url).pathname;

if (!natsAvailable) {
  console.error(`no NATS server at ${NATS_URL}`);
  process.exit(1);
}

const cleanups: Array<() => unknown> = [];
const defer = (cleanup: () => unknown) => void cleanups.push(cleanup);
const ms = (value: number) => `${value.toFixed(2)} ms`;
const line = (label: string, samples: number[]) => console.log(`  ${label.padEnd(52)} p50 ${ms(percentile(samples, 50)).padStart(10)}  p99 ${ms(percentile(samples, 99)).padStart(10)}  (n=${samples.length})`);

async function timed<T>(once: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await once();
  return performance.now() - started;
}

async function floor(iterations: number): Promise<number[]> {
  const { connect } = await import("@nats-io/transport-node");
  const subject = `bench.floor.${Math.random().toString(16).slice(2)}`;
  const child = Bun.spawn([process.execPath, FLOOR_SCRIPT, "--responder", subject, "--url", NATS_URL], { stdio: ["ignore", "inherit", "inherit"] });
  const nc = await connect({ servers: NATS_URL });
  try {
    for (let i = 0; i < 100; i++) await nc.request(subject, "warm", { timeout: 5000 }).catch(async () => Bun.sleep(50));
    const samples: number[] = [];
    for (let i = 0; i < iterations; i++) samples.push(await timed(() => nc.request(subject, "x", { timeout: 5000 })));
    return samples;
  } finally {
    child.kill();
    await nc.close();
  }
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
}

async function acceptance(base: string, count: number, prefix: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    samples.push(await timed(() => fetch(`${base}/v1/events`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input: `job-${i}`, instanceKey: `${prefix}-${i % 4}` }) }).then((response) => response.text())));
  }
  return samples;
}

async function throughput(nodes: ClusterNodeProcess[] | Array<{ base: string; proc: { pid: number } }>, jobs: number, prefix: string): Promise<{ perSecond: number; cpuPerJob: number }> {
  const cpuBefore = nodes.reduce((sum, node) => sum + cpuMs(node.proc.pid), 0);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < jobs) {
        const i = next++;
        const node = nodes[i % nodes.length] as { base: string };
        const answer = await ask(node.base, { input: `job-${i}`, instanceKey: `${prefix}-${i % 16}` });
        if (answer.status !== 200) throw new Error(`job ${i}: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = nodes.reduce((sum, node) => sum + cpuMs(node.proc.pid), 0) - cpuBefore;
  return { perSecond: jobs / seconds, cpuPerJob: cpu / jobs };
}

try {
  console.log(`cluster bench: ${JOBS} jobs per measurement, NATS at ${NATS_URL}`);
  const floorSamples = await floor(1000);
  line("floor: NATS request/reply between two processes", floorSamples);

  // One host, the same bundle, no --cluster.
  const single = await clusterSwarm(defer, { label: "bench1", workers: 16 });
  const host = await startGoondanRun({ args: [`${single.work}/bundle`, "--port", "0", "--state-root", `${single.work}/state-local`], env: { LOOPBACK_API_KEY: "x", CHAOS_EFFECTS_FILE: single.effectsFile, GOONDAN_LOG_LEVEL: "info" }, readyTimeoutMs: 60_000, onSpawn: (proc) => defer(() => proc.kill("SIGKILL")) });
  for (let i = 0; i < 16; i++) await ask(host.base, { input: `job-${i}`, instanceKey: "warm" });
  const localAccept = await acceptance(host.base, JOBS, "acc");
  const localJobs: number[] = [];
  for (let i = 0; i < JOBS; i++) localJobs.push(await timed(() => ask(host.base, { input: `job-${i % 16}`, instanceKey: "lat" })));
  const localThroughput = await throughput([host], JOBS, "tp");
  host.proc.kill("SIGTERM");
  await host.proc.exited;

  // Two cluster nodes.
  const cluster = await clusterSwarm(defer, { label: "bench2", workers: 16, ttlMs: 3000 });
  const n1 = await cluster.startNode("n1");
  const n2 = await cluster.startNode("n2");
  for (let i = 0; i < 16; i++) await ask(n1.base, { input: `job-${i}`, instanceKey: "lat" });
  const table = await clusterProcesses(n1.base);
  const nodeOf = new Map(table.map((row) => [`${row.agent}/${row.instanceKey}`, row.node]));
  const coordinatorNode = nodeOf.get("coordinator/lat");
  const crossJobs = Array.from({ length: 16 }, (_, i) => i).filter((i) => nodeOf.get(`worker/w-${i}`) !== coordinatorNode);
  const clusterAccept = await acceptance(n1.base, JOBS, "acc");
  const clusterJobs: number[] = [];
  for (let i = 0; i < JOBS; i++) clusterJobs.push(await timed(() => ask(n1.base, { input: `job-${crossJobs[i % crossJobs.length]}`, instanceKey: "lat" })));

  console.log("\nevent acceptance (POST /v1/events → 202)");
  line("one host (embedded store, fsync)", localAccept);
  line("cluster node (placed + JetStream intake ack)", clusterAccept);
  console.log(`\ndelegated job end to end (coordinator → worker), worker on another node for ${crossJobs.length}/16 workers`);
  line("one host", localJobs);
  line("cluster, coordinator and worker on different nodes", clusterJobs);
  const added = percentile(clusterJobs, 50) - percentile(localJobs, 50);
  console.log(`  cluster adds per delegated job (p50): ${ms(added)} = ${(added / percentile(floorSamples, 50)).toFixed(1)}x the NATS floor (one event and one request; each crosses NATS several times)`);

  const oneNode = await throughput([n1], JOBS, "tp1");
  const twoNodes = await throughput([n1, n2], JOBS, "tp2");
  console.log("\nthroughput (16 clients, delegated jobs) and node CPU per job");
  console.log(`  one host, no cluster           ${localThroughput.perSecond.toFixed(1).padStart(7)} jobs/s   ${ms(localThroughput.cpuPerJob)} CPU per job`);
  console.log(`  cluster, events on one node    ${oneNode.perSecond.toFixed(1).padStart(7)} jobs/s   ${ms(oneNode.cpuPerJob)} CPU per job (both nodes)`);
  console.log(`  cluster, events on two nodes   ${twoNodes.perSecond.toFixed(1).padStart(7)} jobs/s   ${ms(twoNodes.cpuPerJob)} CPU per job (both nodes)`);

  // Failover: kill the node owning coordinator/lat (a long history) and a fresh coordinator, then ask both through the other node.
  const victim = coordinatorNode === "n1" ? n1 : n2;
  const survivor = victim === n1 ? n2 : n1;
  for (let i = 0; i < 8; i++) await ask(survivor.base, { input: `job-${i}`, instanceKey: `fo-${i}` });
  const owners = new Map((await clusterProcesses(survivor.base)).map((row) => [`${row.agent}/${row.instanceKey}`, row.node]));
  const fresh = Array.from({ length: 8 }, (_, i) => `fo-${i}`).find((key) => owners.get(`coordinator/${key}`) === victim.name);
  const killedAt = performance.now();
  victim.proc.kill("SIGKILL");
  const [long, short] = await Promise.all([
    ask(survivor.base, { input: "job-0", instanceKey: "lat", timeoutMs: 60_000 }).then((answer) => ({ status: answer.status, ms: performance.now() - killedAt })),
    fresh === undefined ? undefined : ask(survivor.base, { input: "job-1", instanceKey: fresh, timeoutMs: 60_000 }).then((answer) => ({ status: answer.status, ms: performance.now() - killedAt })),
  ]);
  console.log(`\nfailover: kill -9 of ${victim.name} → first answer on ${survivor.name} (lease TTL 3000 ms, goal < 4000 ms)`);
  console.log(`  coordinator/lat (${JOBS + 16} jobs of history)  ${ms(long.ms)} (status ${long.status})`);
  if (short) console.log(`  coordinator/${fresh} (1 job of history)        ${ms(short.ms)} (status ${short.status})`);
  for (const replay of survivor.lines.filter((entry) => entry.msg === "replayed an instance's state log")) console.log(`  replayed ${replay.agent}/${replay.instanceKey}: ${replay.records} records in ${replay.ms} ms`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
