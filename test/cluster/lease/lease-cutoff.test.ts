/**
 * A node cut off from NATS stops what its lease covers before the lease can lapse, and another node claims it
 * only afterwards: never two holders at once. Node A reaches NATS through a loopback TCP proxy the test cuts
 * (closing its connections, or freezing them as a partition would); node B connects directly and tries to claim
 * all along. The lease history (every write, recorded by a KV watch from before the first claim) and the work
 * each node did show the hand-over.
 */
import { describe, expect, it } from "bun:test";
import { KvWatchInclude, type KvWatchEntry } from "@nats-io/kv";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import { LeaseKeeper, type LeaseLossReason } from "../../../src/cluster/lease/lease-keeper.ts";
import { LeaseTable, toHolder, type Lease } from "../../../src/cluster/lease/lease-table.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, NATS_URL, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";
import { until } from "../../helpers/goondan-process.ts";
import { startTcpProxy } from "../../helpers/tcp-proxy.ts";

const defer = useCleanups();
const TTL_MS = 3000;
const MARGIN_MS = 1000;
const RENEW_EVERY_MS = 500;

/** Work a node does while it holds the lease: a tick every 20 ms, stopped when the lease is lost. */
function worker(name: string, ticks: { node: string; at: number }[]) {
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    start: () => (timer = setInterval(() => ticks.push({ node: name, at: Date.now() }), 20)),
    stop: () => clearInterval(timer),
  };
}

describe.skipIf(!natsAvailable)("a lease holder cut off from NATS", () => {
  for (const cut of ["stop", "freeze"] as const) {
    it(`stops its work before the TTL ends and another node claims it only afterwards (proxy ${cut})`, async () => {
      const target = new URL(NATS_URL);
      const proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 4222) });
      defer(() => proxy.close());
      const swarm = testSwarm("cutoff");
      removeSwarmAfter(defer, swarm);
      const names = clusterNames(swarm);
      const key = names.instanceLeaseKey("coder", "user-1");

      const direct = await connectTest(defer, { node: "b" });
      const tableB = await LeaseTable.open({ connection: direct, bucket: names.leaseBucket, ttlMs: TTL_MS });
      const history: KvWatchEntry[] = [];
      const recorder = await tableB.kv.watch({ key, include: KvWatchInclude.AllHistory });
      defer(() => recorder.stop());
      void (async () => {
        for await (const entry of recorder) history.push(entry);
      })();

      const viaProxy = await connectTest(defer, {
        node: "a",
        url: `nats://${proxy.address}`,
        reconnectWaitMs: 50,
        pingIntervalMs: 500,
      });
      const tableA = await LeaseTable.open({
        connection: viaProxy,
        bucket: names.leaseBucket,
        ttlMs: TTL_MS,
        requestTimeoutMs: 500,
      });
      const ticks: { node: string; at: number }[] = [];
      const workA = worker("a", ticks);
      const workB = worker("b", ticks);
      let lostA: { reason: LeaseLossReason; at: number; lease: Lease } | undefined;
      const keeperA = new LeaseKeeper({
        table: tableA,
        owner: "a",
        marginMs: MARGIN_MS,
        renewEveryMs: RENEW_EVERY_MS,
        onLost: (lease, reason) => {
          workA.stop();
          lostA = { reason, at: Date.now(), lease };
        },
      });
      defer(() => keeperA.stop());
      const keeperB = new LeaseKeeper({
        table: tableB,
        owner: "b",
        marginMs: MARGIN_MS,
        renewEveryMs: RENEW_EVERY_MS,
        onLost: () => workB.stop(),
      });
      defer(() => keeperB.stop());

      expect((await keeperA.claim(key)).status).toBe("claimed");
      workA.start();
      // A holds it through a few renewals while B is refused.
      await new Promise((resolve) => setTimeout(resolve, 3 * RENEW_EVERY_MS));
      expect((await keeperB.claim(key)).status).toBe("held");

      if (cut === "stop") await proxy.stop();
      else proxy.freeze();
      const cutAt = Date.now();
      let claimedB: number | undefined;
      for (let attempt = 0; attempt < 400 && claimedB === undefined; attempt++) {
        if ((await keeperB.claim(key)).status === "claimed") {
          claimedB = Date.now();
          workB.start();
        } else {
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
      expect(claimedB).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 100));
      workB.stop();

      // A was told to stop because it could not renew, before B got the lease, and no tick of A came after B's first.
      expect(lostA?.reason).toBe("unrenewed");
      expect(lostA!.at).toBeLessThan(claimedB!);
      expect(lostA!.at - cutAt).toBeLessThan(TTL_MS);
      const lastTickA = Math.max(...ticks.filter((tick) => tick.node === "a").map((tick) => tick.at));
      const firstTickB = Math.min(...ticks.filter((tick) => tick.node === "b").map((tick) => tick.at));
      expect(lastTickA).toBeLessThan(firstTickB);

      // The lease history: A's claim and renewals, then B's claim, made no sooner than one TTL after A's last write.
      await until(() => history.some((entry) => toHolder(entry)?.owner === "b"));
      const writes = history.map((entry) => ({
        owner: toHolder(entry)?.owner ?? entry.operation,
        revision: entry.revision,
        at: entry.created.getTime(),
      }));
      const firstB = writes.findIndex((write) => write.owner === "b");
      expect(writes.slice(0, firstB).every((write) => write.owner === "a")).toBe(true);
      expect(firstB).toBeGreaterThanOrEqual(3);
      const lastA = writes[firstB - 1]!;
      expect(writes[firstB]!.at - lastA.at).toBeGreaterThanOrEqual(TTL_MS);
      // A stopped before its last write could lapse.
      expect(lostA!.at).toBeLessThan(lastA.at + TTL_MS);

      // Back on the network, A's stale renew is refused: the revision fences it.
      await proxy.start();
      await until(() => viaProxy.state === "connected" && viaProxy.nc.isClosed() === false);
      const stale = await tableA.renew(lostA!.lease);
      expect(stale).toMatchObject({ status: "lost", reason: "taken", holder: { owner: "b" } });
      expect((await tableB.holder(key))?.owner).toBe("b");
    }, 30_000);
  }
});
