import { describe, expect, it } from "bun:test";
import { ClusterMessenger } from "../../../src/cluster/nats/messenger.ts";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import { LeaseKeeper } from "../../../src/cluster/lease/lease-keeper.ts";
import { LeaseTable } from "../../../src/cluster/lease/lease-table.ts";
import { LeaseWatch, type LeaseChange } from "../../../src/cluster/lease/lease-watch.ts";
import { NodeMembership, nodeInfo } from "../../../src/cluster/members/node-membership.ts";
import { chooseNode, placementCandidates } from "../../../src/cluster/members/placement.ts";
import { UsageError } from "../../../src/shared/errors.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";
import { until } from "../../helpers/goondan-process.ts";

const defer = useCleanups();
const TTL_MS = 2000;

async function join(swarm: string, node: string, options: { maxProcesses?: number; live?: () => number } = {}) {
  const connection = await connectTest(defer, { node });
  const lost: string[] = [];
  const membership = await NodeMembership.join({
    connection,
    swarm,
    node,
    maxProcesses: options.maxProcesses ?? 64,
    live: options.live ?? (() => 0),
    bundleHash: "sha256:test",
    ttlMs: TTL_MS,
    onLost: (reason) => lost.push(reason),
  });
  defer(() => membership.stop());
  return { connection, membership, lost };
}

describe.skipIf(!natsAvailable)("NodeMembership on the local NATS", () => {
  it("lists every live node with its capacity, and heartbeats carry the live count", async () => {
    const swarm = testSwarm("members");
    removeSwarmAfter(defer, swarm);
    let live = 0;
    const a = await join(swarm, "node-a", { maxProcesses: 8, live: () => live });
    await join(swarm, "node-b", { maxProcesses: 16 });
    const members = await a.membership.members();
    expect(members.map((member) => [member.node, member.maxProcesses, member.bundleHash]).sort()).toEqual([
      ["node-a", 8, "sha256:test"],
      ["node-b", 16, "sha256:test"],
    ]);
    live = 5;
    await until(async () => (await a.membership.members()).find((member) => member.node === "node-a")?.live === 5, {
      timeoutMs: 5000,
    });
  }, 15_000);

  it("heartbeats why a node drains, sees its own standing at once, and drops it when the node takes instances again", async () => {
    const swarm = testSwarm("drains");
    removeSwarmAfter(defer, swarm);
    const a = await join(swarm, "node-a");
    const b = await join(swarm, "node-b");
    const draining = {
      code: "E_CLUSTER_BUNDLE_MISMATCH",
      message: "node-a runs another bundle",
      generation: 3,
      since: new Date().toISOString(),
    };
    a.membership.drains(draining);
    expect(a.membership.draining).toEqual(draining);
    expect((await a.membership.members()).find((member) => member.node === "node-a")?.draining).toEqual(draining);
    await until(
      async () => (await b.membership.members()).find((member) => member.node === "node-a")?.draining?.generation === 3,
      { timeoutMs: 5000 },
    );
    expect((await b.membership.members()).find((member) => member.node === "node-b")?.draining).toBeUndefined();
    a.membership.drains(undefined);
    expect((await a.membership.members()).find((member) => member.node === "node-a")?.draining).toBeUndefined();
    await until(
      async () => (await b.membership.members()).find((member) => member.node === "node-a")?.draining === undefined,
      { timeoutMs: 5000 },
    );
  }, 15_000);

  it("refuses a name a live node heartbeats under", async () => {
    const swarm = testSwarm("taken");
    removeSwarmAfter(defer, swarm);
    await join(swarm, "node-a");
    let error: unknown;
    try {
      await join(swarm, "node-a");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).code).toBe("E_CLUSTER_NODE_NAME_TAKEN");
  }, 15_000);

  it("lets a restarted node take back the name its dead run left, once it lapses", async () => {
    const swarm = testSwarm("rejoin");
    removeSwarmAfter(defer, swarm);
    const first = await join(swarm, "node-a");
    first.membership.stop(); // dies: no more heartbeats, no leave
    const started = Date.now();
    const second = await join(swarm, "node-a");
    expect(Date.now() - started).toBeLessThan(TTL_MS + 1500);
    expect((await second.membership.members()).map((member) => member.node)).toEqual(["node-a"]);
  }, 15_000);

  it("drops a node that leaves at once, and one that stops heartbeating after the TTL", async () => {
    const swarm = testSwarm("leave");
    removeSwarmAfter(defer, swarm);
    const a = await join(swarm, "node-a");
    const b = await join(swarm, "node-b");
    const c = await join(swarm, "node-c");
    const changes: LeaseChange[] = [];
    const watch = await LeaseWatch.start({ table: a.membership.table, onChange: (change) => changes.push(change) });
    defer(() => watch.stop());
    await b.membership.leave();
    await until(() => changes.some((change) => change.type === "released" && change.owner === "node-b"));
    c.membership.stop();
    await until(() => changes.some((change) => change.type === "expired" && change.owner === "node-c"), {
      timeoutMs: TTL_MS * 3,
    });
    expect(
      watch
        .holders()
        .map(nodeInfo)
        .map((info) => info.node),
    ).toEqual(["node-a"]);
    expect(a.lost).toEqual([]);
  }, 15_000);
});

describe.skipIf(!natsAvailable)("placement on the local NATS", () => {
  it("spreads 20 instances placed from two nodes at once so neither holds more than 60%", async () => {
    const swarm = testSwarm("place");
    removeSwarmAfter(defer, swarm);
    const names = clusterNames(swarm);
    const nodes = await Promise.all(
      ["node-a", "node-b"].map(async (node) => {
        const member = await join(swarm, node);
        const leases = await LeaseTable.open({ connection: member.connection, bucket: names.leaseBucket });
        const keeper = new LeaseKeeper({ table: leases, owner: node, onLost: () => undefined });
        defer(() => keeper.stop());
        const watch = await LeaseWatch.start({ table: leases });
        defer(() => watch.stop());
        const messenger = new ClusterMessenger({ connection: member.connection, swarm });
        // A node asked to place an instance claims it for itself.
        const served = await messenger.serveNode(node, "place", async ({ agent, instanceKey }) => {
          const outcome = await keeper.claim(names.instanceLeaseKey(agent, instanceKey));
          return { owner: outcome.status === "claimed" ? node : outcome.holder.owner };
        });
        defer(() => served.stop());
        return { node, member, watch, messenger };
      }),
    );
    // Each instance is placed by the node its event reached: the two nodes decide in pairs, at the same moment.
    const place = async (from: (typeof nodes)[number], instanceKey: string) => {
      const candidates = placementCandidates(await from.member.membership.members(), from.watch.countsByOwner());
      const chosen = chooseNode({ instance: names.instanceLeaseKey("coder", instanceKey), candidates });
      if (chosen === undefined) throw new Error("no node has room");
      const answer = await from.messenger.requestNode(chosen, "place", { agent: "coder", instanceKey });
      if (answer.status !== "ok") throw new Error(`place on ${chosen}: ${answer.status}`);
      return answer.value.owner;
    };
    for (let index = 0; index < 20; index += 2) {
      await Promise.all([place(nodes[0]!, `user-${index}`), place(nodes[1]!, `user-${index + 1}`)]);
      await until(() =>
        nodes.every(
          (node) => [...node.watch.countsByOwner().values()].reduce((sum, count) => sum + count, 0) === index + 2,
        ),
      );
    }
    const counts = nodes[0]!.watch.countsByOwner();
    expect((counts.get("node-a") ?? 0) + (counts.get("node-b") ?? 0)).toBe(20);
    expect(Math.max(counts.get("node-a") ?? 0, counts.get("node-b") ?? 0)).toBeLessThanOrEqual(12);
  }, 20_000);
});
