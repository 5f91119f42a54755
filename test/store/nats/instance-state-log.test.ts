import { describe, expect, it } from "bun:test";
import { InstanceStateLog } from "../../../src/store/nats/instance-state-log.ts";
import { ReplicatedStore } from "../../../src/store/nats/replicated-store.ts";
import type { InstanceCommit } from "../../../src/protocol/instance-state.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { stateLogFixture } from "../../helpers/state-log-fixture.ts";
import { natsAvailable } from "../../helpers/nats.ts";

const defer = useCleanups();

const said = (index: number): InstanceCommit => ({
  changes: [
    {
      type: "append",
      message: {
        id: `msg_${index}`,
        data: { role: "user", content: `n${index}` },
        metadata: {},
        createdAt: new Date(0).toISOString(),
        source: { type: "user" },
      } as never,
    },
  ],
});

async function setup() {
  const { ref, leases, claim, node, subjectMessages } = await stateLogFixture(defer, "statelog");
  return { ref, leases, claim, node: () => node(), subjectMessages };
}

describe.skipIf(!natsAvailable)("InstanceStateLog and ReplicatedStore on the local NATS", () => {
  it("groups the writes made while one is on its way into one message, and a new owner replays every write in order", async () => {
    const { ref, leases, claim, node, subjectMessages } = await setup();
    const a = await node();
    const leaseA = await claim("a");
    expect(await a.log.take(ref, leaseA, a.local)).toEqual({ taken: true, replayed: 0, resumed: false });
    await Promise.all(Array.from({ length: 10 }, (_, i) => a.store.commit(ref, said(i))));
    // The fence, the first write alone, the nine made while it was on its way together.
    expect(await subjectMessages()).toBe(3);
    expect(a.local.instanceState(ref).messages.map((message) => message.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `msg_${i}`),
    );

    await leases.release(leaseA);
    const b = await node();
    expect(await b.log.take(ref, await claim("b"), b.local)).toEqual({ taken: true, replayed: 10, resumed: false });
    expect(b.local.instanceState(ref).messages.map((message) => message.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `msg_${i}`),
    );
  });

  it("refuses every write of a group once a newer owner took the log, and keeps none of them", async () => {
    const { ref, leases, claim, node } = await setup();
    const a = await node();
    const leaseA = await claim("a");
    await a.log.take(ref, leaseA, a.local);
    await a.store.commit(ref, said(0));
    await leases.release(leaseA);
    const b = await node();
    const leaseB = await claim("b");
    await b.log.take(ref, leaseB, b.local);

    const refused = await Promise.all(
      [1, 2, 3].map((i) =>
        a.store.commit(ref, said(i)).then(
          () => "written",
          (error: { code?: string }) => error.code,
        ),
      ),
    );
    expect(refused).toEqual(["E_CLUSTER_FENCED", "E_CLUSTER_FENCED", "E_CLUSTER_FENCED"]);
    expect(a.log.owns(ref)).toBe(false);
    // What the log holds: A's write before the fence, none of the refused ones.
    await leases.release(leaseB);
    const c = await node();
    expect((await c.log.take(ref, await claim("c"), c.local)).taken).toBe(true);
    expect(c.local.instanceState(ref).messages.map((message) => message.id)).toEqual(["msg_0"]);
  });

  it("writes an instance this node does not own to the embedded store only", async () => {
    const { ref, node, subjectMessages } = await setup();
    const a = await node();
    await a.store.commit(ref, said(0));
    expect(a.local.instanceState(ref).messages).toHaveLength(1);
    expect(await subjectMessages()).toBe(0);
  });
});
