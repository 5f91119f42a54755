/**
 * The local NATS server for cluster tests (127.0.0.1:4222, JetStream on; GOONDAN_TEST_NATS_URL points
 * elsewhere on loopback). `natsAvailable` is probed once per test file: without a server the cluster tests skip
 * with a visible reason, and under CI=true the file fails, because CI must run them. `testSwarm()` gives each
 * test a swarm name of its own, so its buckets and streams never meet another run's, and `connectTest` defers
 * the removal of every bucket and stream of that swarm, then the connection's stop.
 */
import { connect as tcpConnect } from "node:net";
import { randomBytes } from "node:crypto";
import {
  connectCluster,
  type ClusterConnection,
  type ClusterConnectionOptions,
} from "../../src/cluster/nats/connection.ts";
import { clusterNames } from "../../src/cluster/nats/names.ts";
import { readClusterSettings } from "../../src/cluster/nats/settings.ts";
import type { Defer } from "./cleanups.ts";

export const NATS_URL = process.env.GOONDAN_TEST_NATS_URL ?? "nats://127.0.0.1:4222";

async function probe(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: hostname, port: Number(port || 4222) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    // A NATS server greets with INFO at once.
    socket.once("data", (chunk) => done(chunk.toString().startsWith("INFO")));
    socket.once("error", () => done(false));
  });
}

export const natsAvailable = await probe(NATS_URL);
if (!natsAvailable) {
  const reason = `no NATS server answers at ${NATS_URL} (start one with: nats-server -a 127.0.0.1 -p 4222 -js)`;
  if (process.env.CI === "true") throw new Error(`the cluster tests must run under CI: ${reason}`);
  console.warn(`skipping the cluster tests: ${reason}`);
}

/** A swarm name no other test or run uses. */
export function testSwarm(label: string): string {
  return `t-${label}-${randomBytes(4).toString("hex")}`;
}

/** A node's connection to the test server (or to `url`), stopped after the test. */
export async function connectTest(
  defer: Defer,
  options: { node?: string; url?: string } & ClusterConnectionOptions = {},
): Promise<ClusterConnection> {
  const settings = readClusterSettings({ url: options.url ?? NATS_URL, node: options.node ?? "test-node", env: {} });
  if (settings === undefined) throw new Error("connectTest: no settings");
  const connection = await connectCluster(settings, options);
  defer(() => connection.stop());
  return connection;
}

/** Delete every bucket and stream of `swarm` after the test (through a connection of its own). */
export function removeSwarmAfter(defer: Defer, swarm: string): void {
  defer(async () => {
    const settings = readClusterSettings({ url: NATS_URL, node: "cleanup", env: {} });
    if (settings === undefined) return;
    const connection = await connectCluster(settings);
    try {
      const names = clusterNames(swarm);
      for (const stream of [
        names.intakeStream,
        names.stateStream,
        `KV_${names.leaseBucket}`,
        `KV_${names.scheduleLeaseBucket}`,
        `KV_${names.tickCursorBucket}`,
        `KV_${names.signalWaitBucket}`,
        `KV_${names.signalMailBucket}`,
        `KV_${names.approvalBucket}`,
        `KV_${names.laterEventBucket}`,
        `KV_${names.nodesBucket}`,
        `KV_${names.configBucket}`,
      ]) {
        await connection.jsm.streams.delete(stream).catch(() => false);
      }
    } finally {
      await connection.stop();
    }
  });
}
