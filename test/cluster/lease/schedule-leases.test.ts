/**
 * The schedules' leases on the local NATS: of two nodes following the same schedules, each schedule is held by
 * exactly one; the other claims it once the holder stops (released at once on a clean stop); and the tick cursor the
 * holders record only moves forward (a late write of an older tick leaves it alone).
 */
import { describe, expect, it } from "bun:test";
import { ScheduleLeases } from "../../../src/cluster/lease/schedule-leases.ts";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { until } from "../../helpers/goondan-process.ts";
import { connectTest, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";

const defer = useCleanups();
const SCHEDULES = ["pulse", "weekday.digest", "inbox-check"];

async function follower(swarm: string, node: string) {
  const connection = await connectTest(defer, { node });
  const leases = await ScheduleLeases.open({
    connection,
    names: clusterNames(swarm),
    node,
    ttlMs: 3000,
    logger: silentLogger(),
  });
  const held = new Set<string>();
  leases.follow(SCHEDULES, { held: (name) => held.add(name), lost: (name) => held.delete(name) });
  defer(() => leases.stop());
  return { leases, held };
}

describe.skipIf(!natsAvailable)("the schedules' leases", () => {
  it("give each schedule to one node, hand it over when that node stops, and keep the newest tick", async () => {
    const swarm = testSwarm("schedule-leases");
    removeSwarmAfter(defer, swarm);
    const a = await follower(swarm, "a");
    const b = await follower(swarm, "b");
    await until(() => a.held.size + b.held.size === SCHEDULES.length, { timeoutMs: 15_000 });
    // Exactly one holder each, and both see the same one.
    for (const name of SCHEDULES) {
      expect(a.held.has(name) !== b.held.has(name)).toBe(true);
      expect(await a.leases.holder(name)).toBe(a.held.has(name) ? "a" : "b");
    }
    await a.leases.record("pulse", 2000);
    await b.leases.record("pulse", 1000); // late and older: ignored
    expect(await b.leases.cursor("pulse")).toBe(2000);
    expect(await b.leases.cursor("inbox-check")).toBeUndefined();

    const fromA = [...a.held];
    await a.leases.stop();
    await until(() => b.held.size === SCHEDULES.length, { timeoutMs: 15_000 });
    for (const name of fromA) expect(await b.leases.holder(name)).toBe("b");
  }, 60_000);
});
