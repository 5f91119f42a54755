/**
 * `kill -9` of one of three `goondan run --cluster` nodes amid 300 jobs (a coordinator delegating each to a worker
 * whose tool appends the job's id to a file): the dead node's instances are claimed by the others once their
 * leases lapse, replayed from their state logs, and their unanswered events delivered again; every job accepted
 * is answered once with the right answer, every side effect happens once, and the killed node, started again on
 * its state root, rejoins and takes new instances. State logs are compacted from 12 records on (snapshots then come
 * each time an instance's new records weigh half its last snapshot), so takeovers replay from snapshots too.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { useCleanups } from "../helpers/cleanups.ts";
import { natsAvailable } from "../helpers/nats.ts";
import { ask, clusterProcesses, clusterSwarm, type ClusterNodeProcess } from "./cluster-swarm.ts";

const defer = useCleanups();
const JOBS = 300;
const TTL_MS = 3000;

describe.skipIf(!natsAvailable)("a cluster node killed with SIGKILL", () => {
  it("answers each of 300 jobs once, with each side effect once, and the restarted node rejoins", async () => {
    const cluster = await clusterSwarm(defer, {
      label: "failover",
      workers: 6,
      ttlMs: TTL_MS,
      env: { GOONDAN_CLUSTER_SNAPSHOT_RECORDS: "12" },
      delayMs: () => 5 + Math.floor(Math.random() * 20),
    });
    const n1 = await cluster.startNode("n1");
    let n2: ClusterNodeProcess = await cluster.startNode("n2");
    const n3 = await cluster.startNode("n3");
    const entry = [n1, n3];

    // Jobs arrive on n1 and n3, a few at a time; n2 (which owns some instances) is killed at job 100.
    const answers: Array<{ status: number; body: Record<string, unknown> }> = [];
    let killedOwned = 0;
    const inFlight = new Set<Promise<void>>();
    for (let i = 0; i < JOBS; i++) {
      if (i === 100) {
        killedOwned = (await clusterProcesses(n1.base)).filter(
          (row) => row.node === "n2" && row.kind === "agent",
        ).length;
        n2.proc.kill("SIGKILL");
        await n2.proc.exited;
      }
      const node = entry[i % 2] as ClusterNodeProcess;
      const asked = ask(node.base, { input: `job-${i}`, instanceKey: `c-${i % 6}`, timeoutMs: 90_000 }).then(
        (answer) => {
          answers[i] = answer;
        },
      );
      inFlight.add(asked);
      void asked.finally(() => inFlight.delete(asked));
      if (inFlight.size >= 12) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    expect(killedOwned).toBeGreaterThan(0);

    // Every job answered once, right.
    const wrong = answers
      .map((answer, i) => ({ i, status: answer?.status, response: answer?.body.response }))
      .filter((answer) => answer.status !== 200 || answer.response !== `done job-${answer.i}: did job-${answer.i}`);
    expect(wrong).toEqual([]);
    // Every side effect exactly once.
    const effects = readFileSync(cluster.effectsFile, "utf8").trim().split("\n");
    const counts = new Map<string, number>();
    for (const id of effects) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...counts.entries()].filter(([, count]) => count !== 1)).toEqual([]);
    expect(counts.size).toBe(JOBS);

    // The killed node, started again on its state root, rejoins and takes new instances.
    n2 = await cluster.startNode("n2");
    const fresh = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        ask(n2.base, { input: `job-${JOBS + i}`, instanceKey: `late-${i}`, timeoutMs: 60_000 }),
      ),
    );
    expect(fresh.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    const table = await clusterProcesses(n2.base);
    expect(new Set(table.map((row) => row.node))).toContain("n2");
    expect(table.some((row) => row.node === "n2" && row.kind === "agent")).toBe(true);
  }, 300_000);
});
