/**
 * Three `goondan run --cluster` processes with separate state roots on the local NATS: jobs accepted on one node
 * are delegated to workers that run on other nodes and answered there; a cycle across nodes (coordinator → worker
 * → coordinator) is refused by the call chain; `GET /v1/processes` on every node shows the same cluster with a
 * node column; a node with another bundle is refused (E_CLUSTER_BUNDLE_MISMATCH), naming the live nodes.
 */
import { describe, expect, it } from "bun:test";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { useCleanups } from "../helpers/cleanups.ts";
import { natsAvailable } from "../helpers/nats.ts";
import { ask, clusterProcesses, clusterSwarm } from "./cluster-swarm.ts";

const defer = useCleanups();

describe.skipIf(!natsAvailable)("three goondan nodes on one NATS", () => {
  it("delegates across nodes, refuses a cycle across nodes, and shows one process table on every node", async () => {
    const cluster = await clusterSwarm(defer, { label: "three", workers: 8 });
    const nodes = [await cluster.startNode("n1"), await cluster.startNode("n2"), await cluster.startNode("n3")];

    // Eight jobs on eight coordinators, each delegating to its own worker (c-i → w-i), accepted by every node in turn:
    // with sixteen instances spread over three nodes, some coordinator and its worker run on different nodes.
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        ask((nodes[i % 3] as (typeof nodes)[number]).base, { input: `job-${i}`, instanceKey: `c-${i}` }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(answers.map((answer) => answer.body.response)).toEqual(
      Array.from({ length: 8 }, (_, i) => `done job-${i}: did job-${i}`),
    );
    const effects = readFileSync(cluster.effectsFile, "utf8").trim().split("\n").sort();
    expect(effects).toEqual(Array.from({ length: 8 }, (_, i) => `job-${i}`).sort());

    // One table, the same on every node, with instances on more than one node, and delegations that crossed nodes.
    const tables = await Promise.all(nodes.map((node) => clusterProcesses(node.base)));
    const key = (row: { node: string; agent: string; instanceKey: string }) =>
      `${row.node} ${row.agent}/${row.instanceKey}`;
    const agentRows = (table: (typeof tables)[number]) =>
      table
        .filter((row) => row.kind === "agent")
        .map(key)
        .sort();
    expect(agentRows(tables[0] ?? [])).toEqual(agentRows(tables[1] ?? []));
    expect(agentRows(tables[0] ?? [])).toEqual(agentRows(tables[2] ?? []));
    const rows = (tables[0] ?? []).filter((row) => row.kind === "agent");
    const nodeOf = new Map(rows.map((row) => [`${row.agent}/${row.instanceKey}`, row.node]));
    expect(new Set(rows.map((row) => row.node)).size).toBeGreaterThan(1);
    const crossed = Array.from(
      { length: 8 },
      (_, i) => nodeOf.get(`coordinator/c-${i}`) !== nodeOf.get(`worker/w-${i}`),
    ).filter(Boolean).length;
    expect(crossed).toBeGreaterThan(0);

    // A cycle across nodes: the worker's request back to the coordinator is refused by the call chain.
    const cycle = await ask((nodes[1] as (typeof nodes)[number]).base, { input: "cycle", instanceKey: "c-cycle" });
    expect(cycle.status).toBe(200);
    expect(cycle.body.response).toBe("done cycle: worker got E_CIRCULAR_CALL_DETECTED");

    // `goondan ps` on a node prints the cluster with its NODE column.
    const ps = Bun.spawnSync([
      process.execPath,
      new URL("../../bin/goondan", import.meta.url).pathname,
      "ps",
      "--port",
      String(new URL(nodes[2]?.base ?? "").port),
    ]);
    const printed = ps.stdout.toString();
    expect(printed.split("\n")[0]).toStartWith("NODE");
    for (const name of ["n1", "n2", "n3"].filter((name) => rows.some((row) => row.node === name)))
      expect(printed).toContain(name);

    // A node whose bundle differs is refused, naming the mismatch.
    appendFileSync(join(cluster.work, "bundle", "goondan.yaml"), "\n# changed\n");
    const refused = await cluster.refusedNode("n4");
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain("differs from the one the cluster of swarm");
    expect(refused.stderr).toContain("n1");
  }, 180_000);
});
