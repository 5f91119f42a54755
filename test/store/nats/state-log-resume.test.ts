/**
 * InstanceStateLog's `resumeAfter` (a node taking back an instance it held before it lost NATS) on the local NATS:
 * when the log still ends at the node's own last write, only the fence is written and the local store is left as it
 * is; when anyone wrote since, the log is replayed on a clean slate, as on any takeover. `settledSequence` is known
 * only while no write is queued.
 */
import { describe, expect, it } from "bun:test";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import { InstanceStateLog } from "../../../src/store/nats/instance-state-log.ts";
import type { Lease } from "../../../src/cluster/lease/lease-table.ts";
import type { InstanceRef, Store } from "../../../src/store/store.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";

const defer = useCleanups();

/** The part of a local store a replay of `clear` records touches, counting each call. */
function countingStore() {
  const calls = { deleteInstance: 0, clearConversation: 0 };
  const store = {
    deleteInstance: async () => (calls.deleteInstance++, true),
    clearConversation: async () => (calls.clearConversation++, true),
  } as unknown as Store;
  return { store, calls };
}

async function setup() {
  const swarm = testSwarm("resume");
  removeSwarmAfter(defer, swarm);
  const connection = await connectTest(defer);
  const names = clusterNames(swarm);
  const ref: InstanceRef = { swarm, agent: "coder", instanceKey: "user-1" };
  const lease = (owner: string, revision: number): Lease => ({
    key: names.instanceLeaseKey(ref.agent, ref.instanceKey),
    owner,
    revision,
  });
  // One log object per node, as each node opens its own.
  const node = async () => InstanceStateLog.open({ connection, names });
  return { ref, lease, node };
}

describe.skipIf(!natsAvailable)("InstanceStateLog.take with resumeAfter", () => {
  it("takes an instance back without a replay when its log still ends at this node's last write", async () => {
    const { ref, lease, node } = await setup();
    const a = await node();
    const local = countingStore();
    expect(await a.take(ref, lease("a", 1), local.store)).toEqual({ taken: true, replayed: 0, resumed: false });
    await a.append(ref, { op: "clear" });
    await a.append(ref, { op: "clear" });
    const sequence = a.settledSequence(ref);
    expect(sequence).toBeNumber();
    a.drop(ref);

    const before = { ...local.calls };
    expect(await a.take(ref, lease("a", 5), local.store, { resumeAfter: sequence as number })).toEqual({
      taken: true,
      replayed: 0,
      resumed: true,
    });
    expect(local.calls).toEqual(before);
    expect(a.settledSequence(ref)).toBeGreaterThan(sequence as number);
  });

  it("replays the whole log when another node wrote it since", async () => {
    const { ref, lease, node } = await setup();
    const [a, b] = [await node(), await node()];
    const localA = countingStore();
    await a.take(ref, lease("a", 1), localA.store);
    await a.append(ref, { op: "clear" });
    const sequence = a.settledSequence(ref) as number;
    a.drop(ref);
    await b.take(ref, lease("b", 2), countingStore().store);
    await b.append(ref, { op: "clear" });

    const outcome = await a.take(ref, lease("a", 3), localA.store, { resumeAfter: sequence });
    expect(outcome).toEqual({ taken: true, replayed: 2, resumed: false });
    expect(localA.calls).toEqual({ deleteInstance: 2, clearConversation: 2 });
  });

  it("knows no settled sequence while a write is queued", async () => {
    const { ref, lease, node } = await setup();
    const a = await node();
    await a.take(ref, lease("a", 1), countingStore().store);
    const written = a.append(ref, { op: "clear" });
    expect(a.settledSequence(ref)).toBeUndefined();
    await written;
    await Bun.sleep(0);
    expect(a.settledSequence(ref)).toBeNumber();
    a.drop(ref);
    expect(a.settledSequence(ref)).toBeUndefined();
  });
});
