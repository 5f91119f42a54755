/**
 * Live runtime events between two nodes on the local NATS (src/cluster/live/live-events.ts): a node publishes nothing
 * until another watches; a watch is ready once every member was asked (a member that does not answer is named),
 * then receives the other node's batches with their node, not its own; the publishing stops about three renewals
 * after the last watch closed; a node whose connection is gone publishes and watches without throwing.
 */
import { describe, expect, it } from "bun:test";
import pino from "pino";
import { ClusterMessenger } from "../../../src/cluster/nats/messenger.ts";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import { LiveEvents } from "../../../src/cluster/live/live-events.ts";
import type { LiveApi } from "../../../src/cluster/live/live-interest.ts";
import type { NodeRuntimeEvent } from "../../../src/cluster/view/runtime-events-merge.ts";
import type { RuntimeEvent } from "../../../src/protocol/runtime-event.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, natsAvailable, testSwarm } from "../../helpers/nats.ts";

const defer = useCleanups();
/** Short, but with room for a loaded machine: an interest is fresh for three renewals (600 ms). */
const RENEW_MS = 200;
const logger = pino({ level: "silent" });
const event = (type: RuntimeEvent["type"], agent: string): RuntimeEvent => ({
  type,
  at: new Date().toISOString(),
  agent,
  instanceKey: "k",
  traceId: "t",
  spanId: "s",
});

async function liveNode(swarm: string, node: string, members: string[]) {
  const connection = await connectTest(defer, { node });
  const live = new LiveEvents({
    node,
    connection,
    names: clusterNames(swarm),
    messenger: new ClusterMessenger<LiveApi>({ connection, swarm }),
    members: () => members,
    logger,
    renewMs: RENEW_MS,
    timeoutMs: 300,
  });
  await live.serve();
  defer(() => live.stop());
  return { live, connection };
}

/** Counts what `node` publishes on its live subject, as any subscriber sees it. */
async function published(swarm: string, node: string) {
  const connection = await connectTest(defer, { node: "listener" });
  let count = 0;
  const subscription = connection.nc.subscribe(clusterNames(swarm).liveSubject(node), {
    callback: () => void (count += 1),
  });
  defer(() => subscription.unsubscribe());
  await connection.nc.flush();
  return () => count;
}

describe.skipIf(!natsAvailable)("LiveEvents on the local NATS", () => {
  it("publishes only while a node watches, names the members that did not answer, and hands batches over with their node", async () => {
    const swarm = testSwarm("live");
    const n1 = await liveNode(swarm, "n1", ["n1", "n2", "n3"]);
    const n2 = await liveNode(swarm, "n2", ["n1", "n2"]);
    const fromN2 = await published(swarm, "n2");

    n2.live.publish([event("turn.started", "w")]);
    await Bun.sleep(50);
    expect(fromN2()).toBe(0); // nobody watches: nothing on the wire

    const batches: (readonly NodeRuntimeEvent[])[] = [];
    const watch = n1.live.open((events) => batches.push(events));
    // n3 is a member that never answers (no responders): named, and the watch is ready anyway.
    expect(await watch.ready).toEqual({ unanswered: [{ node: "n3", status: "no_responders" }] });
    n2.live.publish([event("turn.started", "w"), event("tool.called", "w")]);
    n1.live.publish([event("turn.started", "c")]); // nobody else watches n1's: and n1 never hears itself
    for (let i = 0; i < 100 && batches.length === 0; i++) await Bun.sleep(10);
    expect(batches).toHaveLength(1);
    expect(batches[0]?.map((item) => [item.node, item.type, item.agent])).toEqual([
      ["n2", "turn.started", "w"],
      ["n2", "tool.called", "w"],
    ]);

    // Renewed while open: still published well past three renewals.
    await Bun.sleep(RENEW_MS * 5);
    n2.live.publish([event("turn.completed", "w")]);
    for (let i = 0; i < 100 && batches.length < 2; i++) await Bun.sleep(10);
    expect(batches).toHaveLength(2);

    // Closed: n2 publishes until the interest is stale (three renewals), then nothing.
    watch.stop();
    await Bun.sleep(RENEW_MS * 5);
    const before = fromN2();
    n2.live.publish([event("turn.started", "w")]);
    await Bun.sleep(50);
    expect(fromN2()).toBe(before);
    expect(batches).toHaveLength(2);
  }, 15_000);

  it("a node whose connection is gone neither throws on publishing nor on watching, and names the members as unavailable", async () => {
    const swarm = testSwarm("live-gone");
    const n1 = await liveNode(swarm, "n1", ["n1", "n2"]);
    const n2 = await liveNode(swarm, "n2", ["n1", "n2"]);
    const watch = n2.live.open(() => undefined);
    await watch.ready;
    await n1.connection.stop();
    expect(() => n1.live.publish([event("turn.started", "w")])).not.toThrow();
    const blind = n1.live.open(() => undefined);
    expect(await blind.ready).toEqual({ unanswered: [{ node: "n2", status: "unavailable" }] });
    blind.stop();
    watch.stop();
  }, 15_000);
});
