/**
 * A cluster node's state root holds only a local copy of its instances (their state is in the cluster's JetStream
 * state log), with real processes: after `goondan run --cluster` has run on it, `goondan instance delete` refuses
 * (E_INSTANCE_CLUSTER_STATE) and changes nothing; once a single-host `goondan run` has run on the same state root,
 * the delete goes through.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useCleanups, killChild } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, startGoondanRun } from "../helpers/goondan-process.ts";
import { natsAvailable } from "../helpers/nats.ts";
import { instancePaths } from "../../src/shared/state-paths.ts";
import { ask, clusterProcesses, clusterSwarm } from "./cluster-swarm.ts";

const defer = useCleanups();

async function deleteInstance(
  stateRoot: string,
  agent: string,
  instanceKey: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(
    [process.execPath, GOONDAN_BIN, "instance", "delete", agent, instanceKey, "--state-root", stateRoot, "--port", "1"],
    { stdout: "pipe", stderr: "pipe", stdin: "ignore" },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

describe.skipIf(!natsAvailable)("a cluster node's state root", () => {
  it("refuses goondan instance delete after a cluster run, and allows it after a single-host run", async () => {
    const cluster = await clusterSwarm(defer, { label: "mark", workers: 2 });
    const n1 = await cluster.startNode("n1");
    expect((await ask(n1.base, { input: "job-0", instanceKey: "m1" })).status).toBe(200);
    const rows = await clusterProcesses(n1.base);
    expect(rows.some((row) => row.agent === "coordinator" && row.instanceKey === "m1" && row.node === "n1")).toBe(true);
    n1.proc.kill("SIGTERM");
    expect(await n1.proc.exited).toBe(0);

    const stateRoot = join(cluster.work, "state-n1");
    const dir = instancePaths({
      stateRoot,
      swarmInstanceKey: cluster.swarm,
      agent: "coordinator",
      instanceKey: "m1",
    }).root;
    // Its workdir is made only when a tool reads it (the coordinator's only delegate): one a tool wrote stands in.
    mkdirSync(join(dir, "workdir"), { recursive: true });
    writeFileSync(join(dir, "workdir", "note.txt"), "kept");
    const refused = await deleteInstance(stateRoot, "coordinator", "m1");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("E_INSTANCE_CLUSTER_STATE");
    expect(refused.stderr).toContain("cluster node n1");
    expect(existsSync(dir)).toBe(true);

    // The same state root, served by a single host: the mark is gone and so is the refusal.
    const host = await startGoondanRun({
      args: [cluster.bundleDir("n1"), "--port", "0", "--state-root", stateRoot],
      env: { LOOPBACK_API_KEY: "cluster", CHAOS_EFFECTS_FILE: cluster.effectsFile },
      readyTimeoutMs: 60_000,
      onSpawn: (proc) => defer(killChild(proc)),
    });
    host.proc.kill("SIGTERM");
    expect(await host.proc.exited).toBe(0);
    const deleted = await deleteInstance(stateRoot, "coordinator", "m1");
    expect({ code: deleted.code, stderr: deleted.stderr }).toEqual({ code: 0, stderr: "" });
    expect(deleted.stdout).toContain("deleted");
    expect(existsSync(dir)).toBe(false);
  }, 120_000);
});
