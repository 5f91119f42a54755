import { describe, expect, it } from "bun:test";
import { clearUnownedInstance } from "../../../src/cluster/instances/clear-unowned-instance.ts";
import { ReplicatedStore } from "../../../src/store/nats/replicated-store.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import { createLogger } from "../../../src/shared/logger.ts";
import type { InstanceRef } from "../../../src/store/store.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { stateLogFixture } from "../../helpers/state-log-fixture.ts";
import { natsAvailable } from "../../helpers/nats.ts";
import { outcome } from "../../helpers/outcomes.ts";

const defer = useCleanups();
const logger = createLogger("test", { level: "silent" });

const eventOf = (ref: InstanceRef, index: number): AgentEvent => ({
  id: `evt_${index}`,
  type: "user.input",
  input: `job ${index}`,
  agent: ref.agent,
  instanceKey: ref.instanceKey,
  source: { kind: "user", name: "test" },
  traceId: "t",
  callChain: [],
  metadata: {},
  createdAt: new Date(0).toISOString(),
});
const message = (id: string) =>
  ({
    id,
    data: { role: "user", content: id },
    metadata: {},
    createdAt: new Date(0).toISOString(),
    source: { type: "user" },
  }) as never;

async function setup() {
  const {
    swarm,
    names,
    leases,
    ref,
    claim,
    node: fixtureNode,
    subjectMessages,
  } = await stateLogFixture(defer, "clearun");
  /** A node as ClusterNode.store() makes it: the ReplicatedStore clears an instance no node runs in its log. */
  const node = (name: string) =>
    fixtureNode({
      replicated: ({ local, log }) => ({
        clearUnowned: (instance) => clearUnownedInstance(instance, { leases, names, log, node: name, local, logger }),
      }),
    });
  /** Node A runs the instance for three turns, then lets it go (its lease released: no node runs it). */
  const ranThenLeft = async () => {
    const a = await node("a");
    const lease = await claim("a");
    await a.log.take(ref, lease, a.local);
    for (let index = 0; index < 3; index++) {
      await a.store.accept(swarm, eventOf(ref, index), index);
      await a.store.commit(
        ref,
        { changes: [{ type: "append", message: message(`m_${index}`) }], extensionState: { memo: index } },
        outcome({ agent: ref.agent, instanceKey: ref.instanceKey, eventId: `evt_${index}`, response: `done ${index}` }),
      );
    }
    a.log.drop(ref);
    await leases.release(lease);
    return a;
  };
  return { ref, leases, claim, node, ranThenLeft, subjectMessages, names };
}

describe.skipIf(!natsAvailable)("a fresh restart of an instance no node runs, on the local NATS", () => {
  it("clears its conversation in the state log, so the node that claims it next starts empty, its answers and extension state kept", async () => {
    const { ref, leases, claim, node, ranThenLeft, subjectMessages, names } = await setup();
    await ranThenLeft();
    const b = await node("b");
    expect(await b.store.clearConversation(ref)).toBe(false); // b's own copy had nothing
    // The lease was claimed for the clear alone, and released.
    expect(await leases.holder(names.instanceLeaseKey(ref.agent, ref.instanceKey))).toBeUndefined();
    expect(b.log.owns(ref)).toBe(false);
    // The old conversation left the log: the snapshot and the fence that came before it are all it holds.
    expect(await subjectMessages()).toBeLessThanOrEqual(2);

    const c = await node("c");
    expect(await c.log.take(ref, await claim("c"), c.local)).toMatchObject({ taken: true, fromSnapshot: true });
    const state = c.local.instanceState(ref);
    expect(state.messages).toEqual([]);
    expect(state.extensionState).toEqual({ memo: 2 });
    expect((await c.local.inboxRecord(ref.swarm, "evt_1"))?.outcome?.response).toBe("done 1");
  });

  it("leaves the log alone when another node holds the instance (that node clears it in its own restart)", async () => {
    const { ref, claim, node, ranThenLeft, subjectMessages } = await setup();
    await ranThenLeft();
    const d = await node("d");
    const held = await claim("d");
    await d.log.take(ref, held, d.local);
    const before = await subjectMessages();

    const b = await node("b");
    await b.store.clearConversation(ref);
    expect(await subjectMessages()).toBe(before);
    expect(d.local.instanceState(ref).messages).toHaveLength(3);
    // The holder's own clear goes to the log as before.
    await d.store.clearConversation(ref);
    expect(await subjectMessages()).toBe(before + 1);
  });
});
