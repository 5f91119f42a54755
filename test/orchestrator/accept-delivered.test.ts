/**
 * acceptDelivered (cluster mode: the cluster hands an event to the node owning its instance) with the real SQLite
 * store: an event whose turn stopped for approvals — a node died with its turn suspended, and this node took the
 * instance over — is not answered with its stored `awaiting_approval` (the cluster would drop it and nothing would
 * wake the turn): the instance holds, the approvals' deadlines are armed here (`held`), and the event stays the
 * cluster's until its turn ends. One decided meanwhile (queued again by the decision) is not held; a new event is
 * accepted; one answered is answered from the store.
 */
import { describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import type { Instance } from "../../src/orchestrator/instances/instance.ts";
import type { InboxEntry } from "../../src/orchestrator/instances/instance-queue.ts";
import { acceptDelivered } from "../../src/orchestrator/instances/resume-unanswered.ts";
import type { AgentEvent } from "../../src/protocol/agent-event.ts";
import type { TurnOutcome } from "../../src/protocol/turn-outcome.ts";
import { TIMER_APPROVER } from "../../src/protocol/suspension.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { storeFor, tempStateRoot } from "../agent/support/test-env.ts";

const defer = useCleanups();
const SWARM = "swarm";
const REF = { swarm: SWARM, agent: "ops", instanceKey: "k" };

const event = (id: string): AgentEvent => ({
  id,
  type: "user.input",
  input: "go",
  agent: "ops",
  instanceKey: "k",
  source: { kind: "api", name: "api" },
  traceId: "0".repeat(32),
  callChain: [],
  metadata: {},
  createdAt: new Date(0).toISOString(),
});

const outcome = (eventId: string, status: TurnOutcome["status"]): TurnOutcome => ({
  status,
  agent: "ops",
  instanceKey: "k",
  eventId,
  turnId: "turn_1",
  response: status === "ok" ? "done" : "",
  finishReason: status === "ok" ? "stop" : "awaiting_approval",
  ...(status === "awaiting_approval" ? { approvalIds: [`appr_${eventId}`] } : {}),
});

function world(holding: readonly string[] = []) {
  const root = tempStateRoot();
  defer(() => rmSync(root, { recursive: true, force: true }));
  const store = storeFor(root);
  defer(() => store.close());
  const calls: string[] = [];
  const instance = {
    holds: (eventId: string) => holding.includes(eventId),
    awaitApproval: () => void calls.push("awaitApproval"),
    enqueue: (entry: InboxEntry) => void calls.push(`enqueue ${entry.event.id}`),
    accept: async (evt: AgentEvent) => void calls.push(`accept ${evt.id}`),
  } as unknown as Instance;
  const deliver = (evt: AgentEvent) =>
    acceptDelivered({
      store,
      swarm: SWARM,
      event: evt,
      now: 5,
      instance: () => instance,
      held: async () => void calls.push("held"),
    });
  return { store, calls, deliver };
}

async function suspended(store: ReturnType<typeof storeFor>, evt: AgentEvent): Promise<void> {
  await store.accept(SWARM, evt, 1);
  await store.commit(
    REF,
    {
      approvals: {
        requested: [
          {
            id: `appr_${evt.id}`,
            agent: "ops",
            instanceKey: "k",
            eventId: evt.id,
            turnId: "turn_1",
            traceId: "0".repeat(32),
            toolCallId: "call_1",
            toolName: "timer__sleep",
            arguments: {},
            requestedAt: 1,
            expiresAt: 10,
            approvers: [TIMER_APPROVER],
          },
        ],
      },
    },
    outcome(evt.id, "awaiting_approval"),
  );
}

describe("acceptDelivered", () => {
  it("holds a suspended turn taken over from another node and arms its deadlines, leaving its event unanswered", async () => {
    const w = world();
    await suspended(w.store, event("evt_s"));
    expect(await w.deliver(event("evt_s"))).toEqual({});
    expect(w.calls).toEqual(["awaitApproval", "held"]);
  });

  it("does not hold an instance whose suspended turn a decision queued again meanwhile", async () => {
    const w = world(["evt_s"]);
    await suspended(w.store, event("evt_s"));
    expect(await w.deliver(event("evt_s"))).toEqual({});
    expect(w.calls).toEqual(["held"]);
  });

  it("accepts a new event, queues an unanswered one again and answers an answered one from the store", async () => {
    const w = world();
    expect(await w.deliver(event("evt_new"))).toEqual({});
    await w.store.accept(SWARM, event("evt_open"), 1);
    expect(await w.deliver(event("evt_open"))).toEqual({});
    await w.store.accept(SWARM, event("evt_done"), 1);
    await w.store.commit(REF, {}, outcome("evt_done", "ok"));
    expect((await w.deliver(event("evt_done"))).outcome?.response).toBe("done");
    expect(w.calls).toEqual(["accept evt_new", "enqueue evt_open"]);
  });
});
