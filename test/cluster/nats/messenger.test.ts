import { describe, expect, it } from "bun:test";
import { ClusterMessenger } from "../../../src/cluster/nats/messenger.ts";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import { failedReply, type Reply } from "../../../src/protocol/turn-outcome.ts";
import { UsageError } from "../../../src/shared/errors.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, natsAvailable, testSwarm } from "../../helpers/nats.ts";

const defer = useCleanups();

function event(overrides: Partial<AgentEvent> = {}): AgentEvent {
  return {
    id: "evt_1",
    type: "agent.request",
    input: "review this",
    agent: "reviewer",
    instanceKey: "pr.42",
    source: { kind: "agent", name: "coder", instanceKey: "main" },
    replyTo: { target: "coder/main", correlationId: "corr_1" },
    traceId: "0".repeat(32),
    callChain: ["coder"],
    metadata: {},
    createdAt: new Date(0).toISOString(),
    ...overrides,
  };
}

async function twoNodes() {
  const swarm = testSwarm("messages");
  const a = new ClusterMessenger({ connection: await connectTest(defer, { node: "a" }), swarm, timeoutMs: 2000 });
  const b = new ClusterMessenger({ connection: await connectTest(defer, { node: "b" }), swarm, timeoutMs: 2000 });
  return { swarm, a, b };
}

describe.skipIf(!natsAvailable)("ClusterMessenger on the local NATS", () => {
  it("carries an AgentEvent to the node that owns its instance and the receipt back", async () => {
    const { a, b } = await twoNodes();
    const received: AgentEvent[] = [];
    const served = await b.serveInstance("reviewer", "pr.42", async (incoming) => {
      received.push(incoming);
      return { eventId: incoming.id };
    });
    defer(() => served.stop());
    expect(await a.requestInstance("reviewer", "pr.42", event())).toEqual({
      status: "ok",
      value: { eventId: "evt_1" },
    });
    expect(received).toEqual([event()]);
  });

  it("carries a Reply to the requesting instance's node", async () => {
    const { a, b } = await twoNodes();
    const replies: Reply[] = [];
    const served = await a.serveNode("a", "reply", async (reply) => {
      replies.push(reply);
      return { delivered: true };
    });
    defer(() => served.stop());
    const reply: Reply = {
      status: "ok",
      agent: "reviewer",
      instanceKey: "pr.42",
      eventId: "evt_1",
      turnId: "turn_1",
      response: "LGTM",
      finishReason: "stop",
      correlationId: "corr_1",
    };
    expect(await b.requestNode("a", "reply", reply)).toEqual({ status: "ok", value: { delivered: true } });
    expect(replies).toEqual([reply]);
  });

  it("says no_responders at once when no node owns the instance", async () => {
    const { a } = await twoNodes();
    const started = Date.now();
    expect(
      await a.requestInstance("reviewer", "nobody", event({ instanceKey: "nobody" }), { timeoutMs: 5000 }),
    ).toEqual({ status: "no_responders" });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("says timeout when the owner does not answer in time", async () => {
    const { a, b } = await twoNodes();
    const served = await b.serveInstance("reviewer", "slow", () => new Promise(() => undefined));
    defer(() => served.stop());
    expect(await a.requestInstance("reviewer", "slow", event({ instanceKey: "slow" }), { timeoutMs: 200 })).toEqual({
      status: "timeout",
    });
  });

  it("passes a handler's coded error back as refused, with its code", async () => {
    const { a, b } = await twoNodes();
    const served = await b.serveNode("b", "place", async () => {
      throw new UsageError("E_AGENT_NOT_FOUND", "no agent named ghost");
    });
    defer(() => served.stop());
    expect(await a.requestNode("b", "place", { agent: "ghost", instanceKey: "x" })).toEqual({
      status: "refused",
      error: { code: "E_AGENT_NOT_FOUND", message: "no agent named ghost" },
    });
  });

  it("refuses an answer larger than a NATS message can carry, at once and without ending the node", async () => {
    const { a, b } = await twoNodes();
    const served = await b.serveNode("b", "place", async () => ({ owner: "x".repeat(2 * 1024 * 1024) }));
    defer(() => served.stop());
    const started = Date.now();
    const outcome = await a.requestNode("b", "place", { agent: "big", instanceKey: "x" });
    expect(outcome).toMatchObject({ status: "refused", error: { code: "E_CLUSTER_ANSWER_TOO_LARGE" } });
    expect(Date.now() - started).toBeLessThan(1500); // refused, not waited out (the timeout is 2 s)
    // The serving side still answers.
    const small = await b.serveNode("b", "reply", async () => ({ delivered: true }));
    defer(() => small.stop());
    expect(
      await a.requestNode(
        "b",
        "reply",
        failedReply({ correlationId: "c", agent: "x", instanceKey: "y", error: { code: "E", message: "m" } }),
      ),
    ).toEqual({ status: "ok", value: { delivered: true } });
  });

  it("refuses a request that is not JSON", async () => {
    const { swarm, b } = await twoNodes();
    const served = await b.serveNode("b", "place", async () => ({ owner: "b" }));
    defer(() => served.stop());
    const connection = await connectTest(defer);
    const raw = await connection.nc.request(clusterNames(swarm).nodeSubject("b", "place"), "{not json", {
      timeout: 2000,
    });
    expect(raw.json()).toMatchObject({ ok: false, error: { code: "E_CLUSTER_BAD_MESSAGE" } });
  });

  it("says unavailable once its own connection is closed", async () => {
    const swarm = testSwarm("closed");
    const connection = await connectTest(defer);
    const messenger = new ClusterMessenger({ connection, swarm });
    await connection.stop();
    const outcome = await messenger.requestNode(
      "b",
      "reply",
      failedReply({ correlationId: "c", agent: "x", instanceKey: "y", error: { code: "E", message: "m" } }),
    );
    expect(outcome).toMatchObject({ status: "unavailable", error: { code: "E_CLUSTER_UNAVAILABLE" } });
  });
});
