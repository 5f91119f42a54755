/**
 * ClusterNode on the local NATS: where the answer of an event accepted on another node goes. Taken by that node
 * from the owner's state log as soon as it is stored, and sent back to it by the owner (dropped there when the log
 * brought it first), again and again while it is a member that does not take it yet (reconnecting, or slow); and
 * when that node is gone (not a member), also handed to this node's own requests, where a requester that moved here
 * after a failover may be waiting for it. An event accepted here whose answer the store already holds goes to this
 * node's own requests.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClusterMessenger } from "../../../src/cluster/nats/messenger.ts";
import { ClusterNode } from "../../../src/cluster/node/node.ts";
import type { NodeApi } from "../../../src/cluster/node/node-api.ts";
import { EventIntake } from "../../../src/cluster/intake/event-intake.ts";
import { NodeMembership } from "../../../src/cluster/members/node-membership.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import { failedOutcome, type TurnOutcome } from "../../../src/protocol/turn-outcome.ts";
import { SqliteStore } from "../../../src/store/sqlite/sqlite-store.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { joinTestNode, NO_READS, sharedBundle } from "../node-fixture.ts";
import { connectTest, natsAvailable } from "../../helpers/nats.ts";

const defer = useCleanups();

const event = (id: string): AgentEvent => ({
  id,
  type: "agent.request",
  input: "x",
  agent: "worker",
  instanceKey: "w-1",
  source: { kind: "agent", name: "coordinator", instanceKey: "c-1" },
  traceId: "t",
  callChain: ["coordinator"],
  metadata: {},
  createdAt: new Date(0).toISOString(),
});

async function waitFor<T>(what: string, get: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = get();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

describe.skipIf(!natsAvailable)("ClusterNode: the answer of an event accepted elsewhere", () => {
  it("also goes to this node's requests when the node that accepted it is gone, and only then", async () => {
    const { swarm, dir } = sharedBundle(defer, "fallback");
    const node = await joinTestNode({ defer, swarm, dir, name: "n1" });
    const local = new SqliteStore(join(dir, "goondan.db"));
    defer(() => local.close());
    node.store(local);
    const delivered: AgentEvent[] = [];
    const elsewhere: string[] = [];
    await node.attach({
      acceptHere: async (taken) => {
        delivered.push(taken);
        // As the orchestrator answers an event its store holds answered already.
        return taken.id === "evt_known"
          ? {
              outcome: failedOutcome({
                agent: "worker",
                instanceKey: "w-1",
                eventId: taken.id,
                error: { code: "X", message: "known" },
              }),
            }
          : {};
      },
      release: async () => undefined,
      answeredElsewhere: (answered) => void elsewhere.push(answered.id),
      ...NO_READS,
    });

    // Accepted here: answered here, nothing goes elsewhere.
    await node.accept(event("evt_here"));
    const here = await waitFor("the first delivery", () => delivered.find((taken) => taken.id === "evt_here"));
    node.answered(
      here,
      failedOutcome({ agent: "worker", instanceKey: "w-1", eventId: here.id, error: { code: "X", message: "x" } }),
    );

    // Accepted on a node that is gone (nobody answers on its subjects).
    const intake = await EventIntake.open({ connection: await connectTest(defer), swarm });
    await intake.accept(event("evt_ghost"), { origin: "ghost", dedupe: false });
    const ghost = await waitFor("the event from the gone node", () =>
      delivered.find((taken) => taken.id === "evt_ghost"),
    );
    expect(node.from(ghost)).toBe(true);
    node.answered(
      ghost,
      failedOutcome({ agent: "worker", instanceKey: "w-1", eventId: ghost.id, error: { code: "X", message: "x" } }),
    );

    await waitFor("the answer handed to this node", () => (elsewhere.length > 0 ? elsewhere : undefined));
    expect(elsewhere).toEqual(["evt_ghost"]);

    // Accepted on a live member that does not listen yet (as while it reconnects): the answer reaches it once it
    // does, and is not handed to this node's requests.
    const lateConnection = await connectTest(defer, { node: "late" });
    const membership = await NodeMembership.join({
      connection: lateConnection,
      swarm,
      node: "late",
      maxProcesses: 4,
      live: () => 0,
      bundleHash: "sha256:x",
      ttlMs: 3000,
      onLost: () => undefined,
    });
    defer(() => membership.leave());
    await intake.accept(event("evt_late"), { origin: "late", dedupe: false });
    const late = await waitFor("the event from the member not listening yet", () =>
      delivered.find((taken) => taken.id === "evt_late"),
    );
    node.answered(
      late,
      failedOutcome({ agent: "worker", instanceKey: "w-1", eventId: late.id, error: { code: "X", message: "x" } }),
    );
    await Bun.sleep(1500);
    const received: string[] = [];
    const served = await new ClusterMessenger<NodeApi>({ connection: lateConnection, swarm }).serveNode(
      "late",
      "outcome",
      async ({ event: answered }) => {
        received.push(answered.id);
        return { settled: true as const };
      },
    );
    defer(() => served.stop());
    await waitFor("the answer taken by the late node", () => (received.length > 0 ? received : undefined));
    expect(received).toEqual(["evt_late"]);
    expect(elsewhere).toEqual(["evt_ghost"]);

    // Accepted here and answered before (a requester taken over by this node asked again before this node held the
    // callee's state, so the request looked new): not run again, and no turn ends to route its answer, so it goes
    // to this node's own waiters and requester.
    await node.accept(event("evt_known"));
    await waitFor("the stored answer handed to this node's requests", () =>
      elsewhere.includes("evt_known") ? elsewhere : undefined,
    );
    expect(elsewhere).toEqual(["evt_ghost", "evt_known"]);
  }, 30_000);

  it("reaches the node that accepted it from the owner's state log before the owner sends it, and only once", async () => {
    const { swarm, dir } = sharedBundle(defer, "fallback");
    const start = async (name: string) => {
      const node = await joinTestNode({ defer, swarm, dir, name });
      // Outside the bundle directory: the bundle's hash must stay the same for both nodes.
      const stateDir = mkdtempSync(join(tmpdir(), `goondan-fallback-${name}-`));
      defer(() => rmSync(stateDir, { recursive: true, force: true }));
      const local = new SqliteStore(join(stateDir, "goondan.db"));
      defer(() => local.close());
      const store = node.store(local);
      const delivered: AgentEvent[] = [];
      const elsewhere: Array<{ id: string; outcome: TurnOutcome }> = [];
      await node.attach({
        acceptHere: async (taken) => {
          delivered.push(taken);
          return {};
        },
        release: async () => undefined,
        answeredElsewhere: (answered, outcome) => void elsewhere.push({ id: answered.id, outcome }),
        ...NO_READS,
      });
      return { node, store, delivered, elsewhere };
    };
    const nodes = [await start("n1"), await start("n2")];
    const answer = (eventId: string) =>
      failedOutcome({
        agent: "worker",
        instanceKey: "w-1",
        eventId,
        error: { code: "X", message: `answer of ${eventId}` },
      });
    const ref = { swarm, agent: "worker", instanceKey: "w-1" };

    // The first event places worker/w-1 on one of the two nodes; the other is the origin of the next ones.
    await nodes[0]!.node.accept(event("evt_first"));
    const owner = await waitFor("the instance's owner", () =>
      nodes.find((candidate) => candidate.delivered.length > 0),
    );
    const origin = nodes.find((candidate) => candidate !== owner)!;
    owner.node.answered(owner.delivered[0]!, answer("evt_first"));
    // Accepted on the other node: its answer went back there first.
    if (origin === nodes[0])
      await waitFor("the first answer", () => (origin.elsewhere.length > 0 ? origin.elsewhere.splice(0) : undefined));

    await origin.node.accept(event("evt_logged"));
    const logged = await waitFor("the event on its owner", () =>
      owner.delivered.find((taken) => taken.id === "evt_logged"),
    );
    expect(owner.node.from(logged)).toBe(true);
    // The turn's commit with its answer, stored in the state log; the owner has not sent anything yet.
    await owner.store.commit(ref, {}, answer("evt_logged"));
    await waitFor("the answer on the origin", () => (origin.elsewhere.length > 0 ? origin.elsewhere : undefined));
    expect(origin.elsewhere.map((taken) => [taken.id, taken.outcome.error?.message])).toEqual([
      ["evt_logged", "answer of evt_logged"],
    ]);

    // Now the owner sends it too: dropped. Then one only the owner sends (nothing in the log): taken, after it.
    owner.node.answered(logged, answer("evt_logged"));
    await origin.node.accept(event("evt_sent"));
    const sent = await waitFor("the second event on its owner", () =>
      owner.delivered.find((taken) => taken.id === "evt_sent"),
    );
    owner.node.answered(sent, answer("evt_sent"));
    await waitFor("the sent answer on the origin", () => (origin.elsewhere.length > 1 ? origin.elsewhere : undefined));
    expect(origin.elsewhere.map((taken) => taken.id)).toEqual(["evt_logged", "evt_sent"]);
    expect(owner.elsewhere).toEqual([]);
  }, 30_000);
});
