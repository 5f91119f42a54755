/**
 * The cluster's figures, with real `goondan run` processes on the local NATS and a loopback LLM that answers at once:
 *
 *   bun bench/cluster.ts [--jobs N] [--pairs N] [--only latency]
 *
 * 1. floor: a raw NATS request/reply round trip between two processes (bench/nats-floor.ts's responder child);
 * 2. event acceptance: POST /v1/events → 202 on a cluster node (placed, then in the JetStream intake stream) and on
 *    one host (the embedded store's fsync), p50/p99;
 * 3. cross-node agents__request: a delegated job (HTTP event → coordinator → agents__request → worker → reply →
 *    answer), sent to the coordinator's node and timed end to end, in three places: on one host; in the cluster
 *    with the worker on the coordinator's node; in the cluster with the worker on the other node (the last two
 *    interleaved). Two differences are reported against the floor: worker elsewhere minus worker on the same node
 *    (the issue's cross-node agents__request overhead: only the request and its answer cross nodes), and worker
 *    elsewhere minus one host (what the cluster adds to the whole job: the intake, the state logs, the crossing);
 *    the floor they are set against is measured again between those jobs, under the load they ran in.
 *    The pairs (`--pairs`, default 400) alternate which of the two goes first; the cross-node figure is given over
 *    all of them and within each of 5 consecutive slices (lowest–highest), to show how much it moves with the load.
 *    Jobs left running by the acceptance measurement are waited for before any job is timed. Each slice has a
 *    coordinator instance of its own, so that no conversation grows over the whole run.
 * 4. failover: kill -9 of the node owning a coordinator, then a job for it on another node: time to its answer
 *    (lease TTL 3 s here; goal TTL + 1 s);
 * 5. throughput with events sent to one node and to both (jobs in parallel), and both nodes' CPU time per job (utime +
 *    stime of the `goondan run` processes from /proc, agent children not counted).
 * `--only latency` stops after 3 (to measure a change quickly).
 * Each run uses a swarm of its own and deletes its NATS streams and buckets at the end.
 */
import { startGoondanRun } from "../test/helpers/goondan-process.ts";
import { ask, clusterProcesses, clusterSwarm } from "../test/cluster/cluster-swarm.ts";
import { NATS_URL } from "../test/helpers/nats.ts";
import { benchCleanups, requireNats, startNatsFloor } from "./support/nats-bench.ts";
import { flag } from "./support/flag.ts";
import { p50Difference } from "./support/p50-difference.ts";
import { percentile } from "./support/percentile.ts";
import { processCpuMs } from "./support/process-cpu.ts";

const JOBS = Number(flag("jobs", "200"));
/** Interleaved pairs of delegated jobs (worker on the other node, worker on the same node) for the cross-node figure. */
const PAIRS = Number(flag("pairs", "400"));
/** Consecutive slices of the pairs whose p50 differences show the figure's spread. */
const SLICES = 5;
const LATENCY_ONLY = flag("only", "all") === "latency";

requireNats();
const { defer, runCleanups } = benchCleanups();
const ms = (value: number) => `${value.toFixed(2)} ms`;
const line = (label: string, samples: number[]) =>
  console.log(
    `  ${label.padEnd(52)} p50 ${ms(percentile(samples, 50)).padStart(10)}  p99 ${ms(percentile(samples, 99)).padStart(10)}  (n=${samples.length})`,
  );

async function timed<T>(once: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await once();
  return performance.now() - started;
}

async function acceptance(base: string, count: number, prefix: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    samples.push(
      await timed(() =>
        fetch(`${base}/v1/events`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: `job-${i}`, instanceKey: `${prefix}-${i % 4}` }),
        }).then((response) => response.text()),
      ),
    );
  }
  return samples;
}

/** Waits for the jobs `acceptance` left running on `prefix`'s four instances: each answers in order, so a job after them does. */
async function drainAcceptance(base: string, prefix: string): Promise<void> {
  await Promise.all(Array.from({ length: 4 }, (_, k) => ask(base, { input: "job-0", instanceKey: `${prefix}-${k}` })));
}

type Node = { base: string; proc: { pid: number } };

/** `jobs` delegated jobs from 16 clients sent to `nodes` in turn; CPU per job is counted over every process in `counted`. */
async function throughput(
  nodes: Node[],
  counted: Node[],
  jobs: number,
  prefix: string,
): Promise<{ perSecond: number; cpuPerJob: number }> {
  const cpu = () => counted.reduce((sum, node) => sum + processCpuMs(node.proc.pid), 0);
  const cpuBefore = cpu();
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
  return { perSecond: jobs / seconds, cpuPerJob: (cpu() - cpuBefore) / jobs };
}

try {
  console.log(`cluster bench: ${JOBS} jobs per measurement, NATS at ${NATS_URL}`);
  const floor = await startNatsFloor();
  defer(() => floor.stop());
  const floorSamples = await floor.sample(1000);
  line("floor: NATS request/reply between two processes", floorSamples);

  // One host, the same bundle, no --cluster.
  const single = await clusterSwarm(defer, { label: "bench1", workers: 16 });
  const host = await startGoondanRun({
    args: [`${single.work}/bundle`, "--port", "0", "--state-root", `${single.work}/state-local`],
    env: { LOOPBACK_API_KEY: "x", CHAOS_EFFECTS_FILE: single.effectsFile, GOONDAN_LOG_LEVEL: "info" },
    readyTimeoutMs: 60_000,
    onSpawn: (proc) => defer(() => proc.kill("SIGKILL")),
  });
  for (let i = 0; i < 16; i++) await ask(host.base, { input: `job-${i}`, instanceKey: "warm" });
  const localAccept = await acceptance(host.base, JOBS, "acc");
  await drainAcceptance(host.base, "acc");
  const localJobs: number[] = [];
  for (let i = 0; i < JOBS; i++)
    localJobs.push(await timed(() => ask(host.base, { input: `job-${i % 16}`, instanceKey: "lat" })));
  const localThroughput = LATENCY_ONLY ? undefined : await throughput([host], [host], JOBS, "tp");
  host.proc.kill("SIGTERM");
  await host.proc.exited;

  // Two cluster nodes.
  const cluster = await clusterSwarm(defer, { label: "bench2", workers: 16, ttlMs: 3000 });
  const n1 = await cluster.startNode("n1");
  const n2 = await cluster.startNode("n2");
  for (let i = 0; i < 16; i++) await ask(n1.base, { input: `job-${i}`, instanceKey: "lat" });
  /** Where coordinator/`key` runs, and which jobs go to a worker on its node and which to one on the other. */
  const placed = async (key: string) => {
    const nodeOf = new Map(
      (await clusterProcesses(n1.base)).map((row) => [`${row.agent}/${row.instanceKey}`, row.node]),
    );
    const node = nodeOf.get(`coordinator/${key}`);
    const jobsWhere = (sameNode: boolean) =>
      Array.from({ length: 16 }, (_, i) => i).filter((i) => (nodeOf.get(`worker/w-${i}`) === node) === sameNode);
    return {
      key,
      node,
      base: node === n2.name ? n2.base : n1.base,
      crossJobs: jobsWhere(false),
      sameJobs: jobsWhere(true),
    };
  };
  const coordinatorNode = (await placed("lat")).node;
  const clusterAccept = await acceptance(n1.base, JOBS, "acc");
  await drainAcceptance(n1.base, "acc");
  // Interleaved, so that a change of load on the machine weighs on both alike.
  const clusterJobs: number[] = [];
  const sameNodeJobs: number[] = [];
  // The floor again, back to back between the jobs, under the same load as they ran.
  const floorBetween: number[] = [];
  // And one round trip 10 ms into each job, while it runs: its responder has been idle since the last job's, as a
  // worker's node is idle between its jobs and the coordinator's node while the worker runs. A process woken after
  // milliseconds of idleness answers several times slower than one in a back-to-back loop on this VM (see
  // `bench/nats-floor.ts --gaps`), and a cross-node request wakes two: the worker's node and the coordinator's.
  const floorDuring: number[] = [];
  /** Worker on the other node minus worker on the same node, within each pair (both ran one after the other). */
  const paired: number[] = [];
  // Each slice has a coordinator of its own (the first: coordinator/lat), started by one job before it is timed:
  // a coordinator's conversation grows with every job, and so would its turns over the whole run.
  const coordinators: Array<Awaited<ReturnType<typeof placed>>> = [];
  for (let i = 0; i < PAIRS; i++) {
    const slice = Math.floor((i * SLICES) / PAIRS);
    if (coordinators[slice] === undefined) {
      const key = slice === 0 ? "lat" : `lat-${slice}`;
      if (slice > 0) await ask(n1.base, { input: "job-0", instanceKey: key });
      coordinators[slice] = await placed(key);
    }
    const { key, base, crossJobs, sameJobs } = coordinators[slice];
    const job = async (workers: number[], samples: number[]): Promise<number | undefined> => {
      if (workers.length === 0) return undefined;
      const during = Bun.sleep(10).then(() => floor.sample(1));
      const sample = await timed(() => ask(base, { input: `job-${workers[i % workers.length]}`, instanceKey: key }));
      floorDuring.push(...(await during));
      samples.push(sample);
      return sample;
    };
    // Each goes first every other pair: neither always follows the other's leftovers.
    let cross: number | undefined;
    let same: number | undefined;
    if (i % 2 === 0) {
      cross = await job(crossJobs, clusterJobs);
      same = await job(sameJobs, sameNodeJobs);
    } else {
      same = await job(sameJobs, sameNodeJobs);
      cross = await job(crossJobs, clusterJobs);
    }
    if (cross !== undefined && same !== undefined) paired.push(cross - same);
    floorBetween.push(...(await floor.sample(3)));
  }

  const floor50 = percentile(floorBetween, 50);
  const during50 = percentile(floorDuring, 50);
  const versus = (label: string, added: number) =>
    console.log(
      `  ${label.padEnd(52)} ${ms(added).padStart(10)} = ${(added / floor50).toFixed(1)}x the floor back to back, ${(added / during50).toFixed(1)}x the floor during the jobs`,
    );
  console.log("\nevent acceptance (POST /v1/events → 202)");
  line("one host (embedded store, fsync)", localAccept);
  line("cluster node (placed + JetStream intake ack)", clusterAccept);
  console.log(
    `\ndelegated job end to end (coordinator → worker), sent to the coordinator's node; workers on the other node, per slice: ${coordinators.map((placement) => `${placement.crossJobs.length}/16`).join(", ")}`,
  );
  line("one host", localJobs);
  line("cluster, worker on the coordinator's node", sameNodeJobs);
  line("cluster, worker on another node", clusterJobs);
  line("floor, back to back between the jobs", floorBetween);
  line("floor, one round trip 10 ms into each job", floorDuring);
  console.log("  cross-node agents__request (other − same node):");
  if (clusterJobs.length > 0 && sameNodeJobs.length > 0) {
    versus("  difference of the p50s", percentile(clusterJobs, 50) - percentile(sameNodeJobs, 50));
    if (paired.length > 0) versus(`  p50 of the ${paired.length} paired differences`, percentile(paired, 50));
    const spread = p50Difference(clusterJobs, sameNodeJobs, SLICES);
    const x = (value: number) => `${(value / floor50).toFixed(1)}x / ${(value / during50).toFixed(1)}x`;
    console.log(
      `    within ${spread.slices.length} consecutive slices of ${Math.floor(clusterJobs.length / SLICES)} pairs: ${spread.slices.map((value) => value.toFixed(2)).join(", ")} ms`,
    );
    console.log(
      `    slices lowest / median / highest: ${x(spread.low)} / ${x(spread.median)} / ${x(spread.high)} the floors (back to back / during the jobs)`,
    );
  }
  versus("cluster adds to a job (other node − one host)", percentile(clusterJobs, 50) - percentile(localJobs, 50));
  if (localThroughput !== undefined) await throughputAndFailover(localThroughput);

  // Throughput, then failover (it kills a node): only in a full run.
  async function throughputAndFailover(localThroughput: { perSecond: number; cpuPerJob: number }): Promise<void> {
    const oneNode = await throughput([n1], [n1, n2], JOBS, "tp1");
    const twoNodes = await throughput([n1, n2], [n1, n2], JOBS, "tp2");
    console.log("\nthroughput (16 clients, delegated jobs) and node CPU per job");
    console.log(
      `  one host, no cluster           ${localThroughput.perSecond.toFixed(1).padStart(7)} jobs/s   ${ms(localThroughput.cpuPerJob)} CPU per job`,
    );
    console.log(
      `  cluster, events on one node    ${oneNode.perSecond.toFixed(1).padStart(7)} jobs/s   ${ms(oneNode.cpuPerJob)} CPU per job (both nodes)`,
    );
    console.log(
      `  cluster, events on two nodes   ${twoNodes.perSecond.toFixed(1).padStart(7)} jobs/s   ${ms(twoNodes.cpuPerJob)} CPU per job (both nodes)`,
    );

    // Failover: kill the node owning coordinator/lat (a long history) and a fresh coordinator, then ask both through the other node.
    const victim = coordinatorNode === "n1" ? n1 : n2;
    const survivor = victim === n1 ? n2 : n1;
    for (let i = 0; i < 8; i++) await ask(survivor.base, { input: `job-${i}`, instanceKey: `fo-${i}` });
    const owners = new Map(
      (await clusterProcesses(survivor.base)).map((row) => [`${row.agent}/${row.instanceKey}`, row.node]),
    );
    const fresh = Array.from({ length: 8 }, (_, i) => `fo-${i}`).find(
      (key) => owners.get(`coordinator/${key}`) === victim.name,
    );
    const killedAt = performance.now();
    victim.proc.kill("SIGKILL");
    const [long, short] = await Promise.all([
      ask(survivor.base, { input: "job-0", instanceKey: "lat", timeoutMs: 60_000 }).then((answer) => ({
        status: answer.status,
        ms: performance.now() - killedAt,
      })),
      fresh === undefined
        ? undefined
        : ask(survivor.base, { input: "job-1", instanceKey: fresh, timeoutMs: 60_000 }).then((answer) => ({
            status: answer.status,
            ms: performance.now() - killedAt,
          })),
    ]);
    console.log(
      `\nfailover: kill -9 of ${victim.name} → first answer on ${survivor.name} (lease TTL 3000 ms, goal < 4000 ms)`,
    );
    console.log(
      `  coordinator/lat (${Math.ceil(PAIRS / SLICES) * 2 + 16} jobs of history)  ${ms(long.ms)} (status ${long.status})`,
    );
    if (short) console.log(`  coordinator/${fresh} (1 job of history)        ${ms(short.ms)} (status ${short.status})`);
    for (const replay of survivor.lines.filter((entry) => entry.msg === "replayed an instance's state log"))
      console.log(`  replayed ${replay.agent}/${replay.instanceKey}: ${replay.records} records in ${replay.ms} ms`);
  }
} finally {
  await runCleanups();
}
