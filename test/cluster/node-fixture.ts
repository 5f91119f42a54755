/**
 * ClusterNode in-process, for the tests (and the bench) that drive it without an orchestrator: a swarm of its own
 * with a bundle directory its nodes share (both removed afterwards), a node of it joined on the local NATS (stopped
 * afterwards), and the read side of a host that has nothing to show (for hosts that only take events and answers).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClusterNode } from "../../src/cluster/node/node.ts";
import { readClusterSettings } from "../../src/cluster/nats/settings.ts";
import type { ReadHost } from "../../src/cluster/view/reads.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import type { Defer } from "../helpers/cleanups.ts";
import { NATS_URL, removeSwarmAfter, testSwarm } from "../helpers/nats.ts";

/** Every read a node serves to the others, answering nothing. */
export const NO_READS: ReadHost = {
  processes: () => [],
  instances: async () => [],
  runtimeEvents: async () => [],
  conversation: async () => ({ messages: [] }),
  eventState: async () => undefined,
  approvals: { pending: async () => [], suspended: async () => [], get: async () => undefined },
  scheduled: async () => [],
};

/** A fresh swarm and one bundle directory for all its nodes (the same bundle hash, so each may join). */
export function sharedBundle(defer: Defer, label: string): { swarm: string; dir: string } {
  const swarm = testSwarm(label);
  removeSwarmAfter(defer, swarm);
  const dir = mkdtempSync(join(tmpdir(), `goondan-${label}-`));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "goondan.yaml"), "# bundle\n");
  return { swarm, dir };
}

/** Node `name` of `swarm` on the local NATS (3 s leases, room for 4 instances), stopped after the test. */
export async function joinTestNode(options: {
  defer: Defer;
  swarm: string;
  dir: string;
  name: string;
}): Promise<ClusterNode> {
  const settings = readClusterSettings({ url: NATS_URL, node: options.name, env: {} });
  if (settings === undefined) throw new Error("no settings");
  const node = await ClusterNode.join({
    settings,
    swarm: options.swarm,
    bundleDir: options.dir,
    maxProcesses: 4,
    logger: silentLogger(),
    ttlMs: 3000,
  });
  options.defer(() => node.stop());
  return node;
}
