import { describe, expect, it } from "bun:test";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import { LeaseTable } from "../../../src/cluster/lease/lease-table.ts";
import { LeaseWatch, type LeaseChange } from "../../../src/cluster/lease/lease-watch.ts";
import { ConfigError } from "../../../src/shared/errors.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";
import { until } from "../../helpers/goondan-process.ts";

const defer = useCleanups();

async function openTable(options: { ttlMs?: number } = {}) {
  const swarm = testSwarm("leases");
  removeSwarmAfter(defer, swarm);
  const connection = await connectTest(defer);
  const table = await LeaseTable.open({
    connection,
    bucket: clusterNames(swarm).leaseBucket,
    ttlMs: options.ttlMs ?? 10_000,
  });
  return { swarm, connection, table, key: clusterNames(swarm).instanceLeaseKey("coder", "user:1") };
}

describe.skipIf(!natsAvailable)("LeaseTable on the local NATS", () => {
  it("lets exactly one of many concurrent claimers win, and tells the others who holds it", async () => {
    const { table, key } = await openTable();
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, index) => table.claim(key, `node-${index}`)));
    const winners = outcomes.filter((outcome) => outcome.status === "claimed");
    expect(winners).toHaveLength(1);
    const winner = winners[0]!.status === "claimed" ? winners[0]!.lease : undefined;
    for (const outcome of outcomes) {
      if (outcome.status === "held")
        expect(outcome.holder).toMatchObject({ owner: winner!.owner, revision: winner!.revision });
    }
  });

  it("renews at the held revision and refuses a stale holder's renew and release (the revision fences)", async () => {
    const { table, key } = await openTable();
    const claimed = await table.claim(key, "a");
    if (claimed.status !== "claimed") throw new Error("expected a claim");
    const renewed = await table.renew(claimed.lease, { live: 3 });
    if (renewed.status !== "renewed") throw new Error("expected a renew");
    expect(renewed.lease.revision).toBeGreaterThan(claimed.lease.revision);
    expect((await table.holder(key))?.data).toEqual({ live: 3 });
    // The first lease's revision is stale now: its renew and its release are refused, nothing is written.
    expect(await table.renew(claimed.lease)).toMatchObject({
      status: "lost",
      reason: "taken",
      holder: { owner: "a", revision: renewed.lease.revision },
    });
    expect(await table.release(claimed.lease)).toMatchObject({ status: "lost", reason: "taken" });
    expect((await table.holder(key))?.revision).toBe(renewed.lease.revision);
    expect(await table.release(renewed.lease)).toEqual({ status: "released" });
    expect(await table.holder(key)).toBeUndefined();
    // Released: anyone may claim it, and the old holder's renew is refused as expired.
    expect((await table.claim(key, "b")).status).toBe("claimed");
    expect(await table.renew(renewed.lease)).toMatchObject({ status: "lost", reason: "taken", holder: { owner: "b" } });
  });

  it("lets a lease nobody renews lapse after the TTL, so another node claims it, and refuses the old holder's renew", async () => {
    const { table, key } = await openTable({ ttlMs: 1000 });
    const claimed = await table.claim(key, "a");
    if (claimed.status !== "claimed") throw new Error("expected a claim");
    expect((await table.claim(key, "b")).status).toBe("held");
    await until(async () => (await table.holder(key)) === undefined, { timeoutMs: 5000 });
    expect(await table.renew(claimed.lease)).toEqual({ status: "lost", reason: "expired" });
    expect((await table.claim(key, "b")).status).toBe("claimed");
  }, 10_000);

  it("lists every key held", async () => {
    const { swarm, table } = await openTable();
    const names = clusterNames(swarm);
    for (const key of ["k1", "k2", "k3"]) await table.claim(names.instanceLeaseKey("coder", key), `owner-${key}`);
    expect((await table.holders()).map((holder) => holder.owner).sort()).toEqual(["owner-k1", "owner-k2", "owner-k3"]);
  });

  it("refuses to run with a TTL other than the one the bucket was made with", async () => {
    const { connection, table } = await openTable({ ttlMs: 10_000 });
    let error: unknown;
    try {
      await LeaseTable.open({ connection, bucket: table.bucket, ttlMs: 5000 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe("E_CLUSTER_CONFIG_MISMATCH");
  });
});

describe.skipIf(!natsAvailable)("LeaseWatch on the local NATS", () => {
  it("loads the current holders, then reports claims, renewals, releases and lapses", async () => {
    const { table, key } = await openTable({ ttlMs: 1000 });
    const first = await table.claim("before.watch", "a");
    expect(first.status).toBe("claimed");
    const changes: LeaseChange[] = [];
    const watch = await LeaseWatch.start({ table, onChange: (change) => changes.push(change) });
    defer(() => watch.stop());
    expect(watch.holder("before.watch")?.owner).toBe("a");
    changes.length = 0;

    const claimed = await table.claim(key, "b");
    if (claimed.status !== "claimed") throw new Error("expected a claim");
    const renewed = await table.renew(claimed.lease);
    if (renewed.status !== "renewed") throw new Error("expected a renew");
    await until(() => changes.some((change) => change.type === "renewed"));
    expect(watch.countsByOwner().get("b")).toBe(1);
    await table.release(renewed.lease);
    await until(() => changes.some((change) => change.type === "released"));
    await until(() => changes.some((change) => change.type === "expired" && change.key === "before.watch"), {
      timeoutMs: 5000,
    });
    expect(changes.map((change) => `${change.type} ${change.key} ${change.owner}`)).toEqual([
      `claimed ${key} b`,
      `renewed ${key} b`,
      `released ${key} b`,
      "expired before.watch a",
    ]);
    expect(watch.holders()).toEqual([]);
  }, 10_000);

  it("starts on an empty bucket at once", async () => {
    const { table } = await openTable();
    const watch = await LeaseWatch.start({ table });
    defer(() => watch.stop());
    expect(watch.holders()).toEqual([]);
  });
});
