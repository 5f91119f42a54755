/**
 * A schedule in a cluster of two real `goondan run --cluster` nodes on the local NATS: an `every: 1s` Connection
 * whose ticks reach a worker that appends each tick's time to a file once (the effects tool: a side effect that must
 * not happen twice). Exactly one node fires the ticks (the holder of the schedule's lease, as GET /v1/schedules
 * says); it is killed with SIGKILL, the other node takes the lease once it lapses and carries on from the newest
 * tick recorded, catching up (`catchUp: all`) the ticks that came due meanwhile. To make the dead node's last act a
 * tick it accepted but never recorded, the test winds the cluster's tick cursor back to the first tick right after
 * the kill: the new holder then offers every tick since again, with the same event ids, and each must be taken once.
 * Judged on the effects file: every second from the first tick to the last one judged is there (0 lost), and none
 * twice (0 duplicated).
 */
import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { connectTest, natsAvailable } from "../helpers/nats.ts";
import { clusterNames } from "../../src/cluster/nats/names.ts";
import { subjectToken } from "../../src/cluster/nats/subject-token.ts";
import { clusterSwarm, type ClusterNodeProcess } from "./cluster-swarm.ts";

const defer = useCleanups();
const TTL_MS = 3000;

const PULSE = `apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: pulse }
spec:
  connectorRef: { kind: Connector, name: schedule, package: "@goondan/base" }
  swarmRef: Swarm/__SWARM__
  config: { every: 1s, input: "{{tickAt}}", catchUp: all, catchUpMax: 30 }
  ingress:
    rules:
      - match: { event: tick }
        route: { agentRef: Agent/worker, instanceKey: pulse }
`;

interface ScheduleRow {
  connection: string;
  node?: string;
  fired: number;
  caughtUp: number;
}

async function pulse(node: ClusterNodeProcess): Promise<ScheduleRow | undefined> {
  const response = await fetch(`${node.base}/v1/schedules`).catch(() => undefined);
  if (response?.status !== 200) return undefined;
  const body = (await response.json()) as { schedules: ScheduleRow[] };
  return body.schedules.find((row) => row.connection === "pulse");
}

describe.skipIf(!natsAvailable)("a schedule in a cluster of two nodes", () => {
  it("is fired by one node, and by the other once the first is killed: 0 ticks lost, 0 duplicated", async () => {
    const cluster = await clusterSwarm(defer, { label: "ticks", ttlMs: TTL_MS, documents: PULSE });
    const ticks = () =>
      existsSync(cluster.effectsFile)
        ? readFileSync(cluster.effectsFile, "utf8").trim().split("\n").filter(Boolean).map(Date.parse)
        : [];
    const nodes = [await cluster.startNode("n1"), await cluster.startNode("n2")];

    // One node holds the schedule, and both say which.
    const holderName = await until(
      async () => {
        const rows = await Promise.all(nodes.map(pulse));
        const named = rows.map((row) => row?.node);
        return named[0] !== undefined && named[0] === named[1] && named[0];
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const firing = nodes.find((node) => node.name === holderName) as ClusterNodeProcess;
    const other = nodes.find((node) => node.name !== holderName) as ClusterNodeProcess;
    await until(() => ticks().length >= 6, { timeoutMs: 60_000, intervalMs: 200 });

    firing.proc.kill("SIGKILL");
    await firing.proc.exited;
    const killedAt = Date.now();
    // The dead node's cursor, as if it had accepted every tick since the first without recording one.
    const first = Math.min(...ticks());
    const connection = await connectTest(defer);
    const cursors = await connection.kvm.open(clusterNames(cluster.swarm).tickCursorBucket);
    await cursors.put(subjectToken("pulse"), String(first));
    const offeredAgain = Math.floor((killedAt - first) / 1000);

    // The other node takes the schedule over and ticks keep coming from it.
    const taken = await until(
      async () => {
        const row = await pulse(other);
        return row?.node === other.name && row.caughtUp >= Math.min(offeredAgain, 30) && row;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(taken.node).toBe(other.name);
    expect(offeredAgain).toBeGreaterThanOrEqual(3);
    await until(() => ticks().some((at) => at > killedAt + 4000), { timeoutMs: 90_000, intervalMs: 200 });

    // Judge every second from the first tick up to one well after the failover, once its turns have all run.
    const last = Math.max(...ticks().filter((at) => at <= killedAt + 4000)) + 1000;
    const expected = Array.from({ length: (last - first) / 1000 + 1 }, (_, i) => first + i * 1000);
    const seen = () => new Set(ticks().filter((at) => at <= last));
    await until(() => expected.every((at) => seen().has(at)), { timeoutMs: 90_000, intervalMs: 250 }).catch(
      () => undefined,
    );
    const judged = ticks().filter((at) => at <= last);
    const lost = expected.filter((at) => !judged.includes(at)).map((at) => new Date(at).toISOString());
    const duplicated = judged.filter((at, i) => judged.indexOf(at) !== i).map((at) => new Date(at).toISOString());
    console.log(
      `schedule failover: ${offeredAgain} ticks offered again (${taken.caughtUp} caught up by ${taken.node}), ${expected.length} ticks judged (${new Date(first).toISOString()} .. ${new Date(last).toISOString()}), lost ${lost.length}, duplicated ${duplicated.length}`,
    );
    expect(expected.length).toBeGreaterThanOrEqual(8);
    expect(lost).toEqual([]);
    expect(duplicated).toEqual([]);
  }, 300_000);
});
