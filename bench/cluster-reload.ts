/**
 * How long a cluster-wide reload takes, with real `goondan run --cluster` processes on the local NATS, each node on its
 * own copy of the bundle:
 *
 *   bun bench/cluster-reload.ts [--restarts N] [--instances N]
 *
 * Timed: from `POST /v1/restart` on one node until every live instance of the swarm runs on a new, idle child (read
 * from the cluster's process table). Floor: the same restart with one node holding every instance (its own reload,
 * nothing to announce to anyone). Then three nodes, the instances spread over them, the restart asked of n1: the
 * difference is what announcing and relaying the reload adds. Each run uses a swarm of its own and deletes its NATS
 * streams and buckets at the end.
 */
import { ask, clusterProcesses, clusterSwarm, type ClusterNodeProcess } from "../test/cluster/cluster-swarm.ts";
import { benchCleanups, requireNats } from "./support/nats-bench.ts";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";

const RESTARTS = Number(flag("restarts", "8"));
const INSTANCES = Number(flag("instances", "6"));

requireNats();
const { defer, runCleanups } = benchCleanups();
const ms = (value: number) => `${value.toFixed(0)} ms`;

/** POST /v1/restart on `base`, then wait until every agent row of the cluster has a new pid and is idle. */
async function restartEverywhere(base: string): Promise<number> {
  const before = new Set((await clusterProcesses(base)).filter((row) => row.kind === "agent").map((row) => row.pid));
  const started = performance.now();
  const response = await fetch(`${base}/v1/restart`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  if (response.status !== 202) throw new Error(`restart answered ${response.status}: ${await response.text()}`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const rows = (await clusterProcesses(base)).filter((row) => row.kind === "agent") as Array<{
      pid: number | null;
      status?: string;
    }>;
    if (
      rows.length >= INSTANCES &&
      rows.every((row) => row.pid !== null && !before.has(row.pid) && row.status === "idle")
    )
      return performance.now() - started;
    if (Date.now() > deadline) throw new Error(`not every instance restarted within 60 s: ${JSON.stringify(rows)}`);
    await Bun.sleep(10);
  }
}

async function measure(base: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < RESTARTS; i++) {
    samples.push(await restartEverywhere(base));
    await Bun.sleep(300);
  }
  return samples;
}

async function liveInstances(nodes: ClusterNodeProcess[], prefix: string): Promise<void> {
  // Coordinators only: the bench's jobs are `cycle`-free and each one delegates to a worker, so workers come up too.
  const answers = await Promise.all(
    Array.from({ length: INSTANCES / 2 }, (_, i) =>
      ask((nodes[i % nodes.length] as ClusterNodeProcess).base, { input: `job-${i}`, instanceKey: `${prefix}-${i}` }),
    ),
  );
  if (answers.some((answer) => answer.status !== 200)) throw new Error(`jobs failed: ${JSON.stringify(answers)}`);
}

const line = (label: string, samples: number[]) =>
  console.log(
    `  ${label.padEnd(44)} p50 ${ms(percentile(samples, 50)).padStart(8)}  min ${ms(Math.min(...samples)).padStart(8)}  max ${ms(Math.max(...samples)).padStart(8)}  (n=${samples.length})`,
  );

try {
  console.log(
    `cluster-wide reload: ${INSTANCES} live instances (coordinators and their workers), ${RESTARTS} restarts each; load ${(await Bun.file("/proc/loadavg").text()).trim()}`,
  );
  const one = await clusterSwarm(defer, { label: "bench-reload-1", workers: INSTANCES / 2, bundlePerNode: true });
  const alone = await one.startNode("n1");
  await liveInstances([alone], "c");
  const floor = await measure(alone.base);
  line("floor: one node, every instance on it", floor);

  const three = await clusterSwarm(defer, { label: "bench-reload-3", workers: INSTANCES / 2, bundlePerNode: true });
  const nodes = [await three.startNode("n1"), await three.startNode("n2"), await three.startNode("n3")];
  await liveInstances(nodes, "c");
  const spread = new Set(
    (await clusterProcesses(nodes[0]!.base)).filter((row) => row.kind === "agent").map((row) => row.node),
  );
  const cluster = await measure(nodes[0]!.base);
  line(`three nodes (instances on ${spread.size}), asked of n1`, cluster);
  console.log(
    `  ratio to the floor (p50): ${(percentile(cluster, 50) / percentile(floor, 50)).toFixed(2)}x; load after ${(await Bun.file("/proc/loadavg").text()).trim()}`,
  );
} finally {
  await runCleanups();
}
