/**
 * NodeDrain with a fake membership, owned instances and messenger: nothing moves while the node agrees; once it
 * refused a reload, its instances go to the agreeing nodes with room (spread by load, never to another draining
 * node), one no node has room for stays, and a later reload ends the drain.
 */
import { describe, expect, it } from "bun:test";
import { NodeDrain } from "../../../src/cluster/reload/node-drain.ts";
import type { Draining, NodeInfo } from "../../../src/cluster/members/node-membership.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { until } from "../../helpers/goondan-process.ts";

const DRAINING: Draining = {
  code: "E_CLUSTER_BUNDLE_MISMATCH",
  message: "n3 runs another bundle",
  generation: 2,
  since: "2026-01-01T00:00:00.000Z",
};

function member(node: string, live: number, draining?: Draining): NodeInfo {
  return {
    node,
    maxProcesses: 8,
    live,
    bundleHash: "sha256:x",
    startedAt: "",
    heartbeatAt: 0,
    ...(draining ? { draining } : {}),
  };
}

/** A node n3 owning `instances`, the other members as given; `owner` answers each `place` request. */
function world(options: { instances: string[]; others: NodeInfo[]; owner?: (target: string) => boolean }) {
  let draining: Draining | undefined;
  let owned = options.instances.map((instanceKey) => ({ agent: "worker", instanceKey, key: `worker.${instanceKey}` }));
  const handedOver: string[] = [];
  const placed: Array<[string, string]> = [];
  const drain = new NodeDrain({
    node: "n3",
    membership: {
      drains: (value) => void (draining = value),
      get draining() {
        return draining;
      },
      members: async () => [...options.others, member("n3", owned.length, draining)],
    },
    owned: {
      list: () => owned,
      handOver: async (_agent, instanceKey) => {
        handedOver.push(instanceKey);
        owned = owned.filter((entry) => entry.instanceKey !== instanceKey);
        return true;
      },
    },
    leaseCounts: () => new Map(),
    messenger: {
      requestNode: async (target, _kind, request) => {
        placed.push([request.instanceKey, target]);
        return { status: "ok", value: { owner: options.owner?.(target) ?? true } };
      },
    },
    logger: silentLogger(),
  });
  return { drain, handedOver, placed, owned: () => owned };
}

describe("NodeDrain", () => {
  it("does nothing while the node agrees with the cluster", async () => {
    const w = world({ instances: ["a", "b"], others: [member("n1", 0)] });
    expect(await w.drain.handOver()).toBe(0);
    expect(w.handedOver).toEqual([]);
  });

  it("once refused, hands every instance over to the agreeing nodes, spread by load, never to a node that drains", async () => {
    const w = world({
      instances: ["a", "b", "c", "d"],
      others: [member("n1", 0), member("n2", 0), member("n4", 0, DRAINING)],
    });
    w.drain.set(DRAINING);
    expect(w.drain.draining).toEqual(DRAINING);
    await until(() => w.placed.length === 4, { timeoutMs: 2000 });
    expect(w.handedOver.sort()).toEqual(["a", "b", "c", "d"]);
    const targets = w.placed.map(([, target]) => target);
    expect(targets.filter((target) => target === "n1")).toHaveLength(2);
    expect(targets.filter((target) => target === "n2")).toHaveLength(2);
    expect(await w.drain.handOver()).toBe(0); // nothing left
  });

  it("keeps an instance no agreeing node has room for, and hands it over once one has", async () => {
    const full = { ...member("n1", 8) };
    const others = [full];
    const w = world({ instances: ["a"], others });
    w.drain.set(DRAINING);
    expect(await w.drain.handOver()).toBe(0);
    expect(w.owned()).toHaveLength(1);
    full.live = 2;
    expect(await w.drain.handOver()).toBe(1);
    expect(w.placed).toEqual([["a", "n1"]]);
  });

  it("stops draining when the node takes a later reload", async () => {
    const w = world({ instances: ["a"], others: [] });
    w.drain.set(DRAINING);
    w.drain.set(undefined);
    expect(w.drain.draining).toBeUndefined();
    expect(await w.drain.handOver()).toBe(0);
    expect(w.owned()).toHaveLength(1);
  });
});
