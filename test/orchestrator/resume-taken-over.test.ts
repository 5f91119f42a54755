/**
 * resumeTakenOver (cluster mode: a node took an instance over and replayed its state) with the real SQLite store: a
 * turn waiting for approvals holds the instance (unless a decision queued it again meanwhile), and the instance's
 * messages for later, acked from the cluster's stream once first stored, are queued again, resumed; other instances'
 * and answered ones are not.
 */
import { describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import type { Instance } from "../../src/orchestrator/instances/instance.ts";
import type { InboxEntry } from "../../src/orchestrator/instances/instance-queue.ts";
import { resumeTakenOver } from "../../src/orchestrator/instances/resume-unanswered.ts";
import type { AgentEvent } from "../../src/protocol/agent-event.ts";
import type { Approval } from "../../src/protocol/approval.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { storeFor, tempStateRoot } from "../agent/support/test-env.ts";

const defer = useCleanups();
const SWARM = "swarm";

const event = (id: string, instanceKey: string, notBefore?: number): AgentEvent => ({
  id,
  type: "agent.message",
  input: "later",
  agent: "ops",
  instanceKey,
  source: { kind: "agent", name: "ops" },
  traceId: "t",
  callChain: [],
  metadata: {},
  createdAt: new Date(0).toISOString(),
  ...(notBefore === undefined ? {} : { notBefore }),
});

function world(options: { waiting?: string[]; holding?: string[] } = {}) {
  const root = tempStateRoot();
  defer(() => rmSync(root, { recursive: true, force: true }));
  const store = storeFor(root);
  defer(() => store.close());
  const calls: string[] = [];
  const instance = {
    holds: (eventId: string) => (options.holding ?? []).includes(eventId),
    awaitApproval: () => void calls.push("awaitApproval"),
    enqueue: (entry: InboxEntry) => void calls.push(`enqueue ${entry.event.id}${entry.resumed ? " resumed" : ""}`),
  } as unknown as Instance;
  const resume = () =>
    resumeTakenOver({
      store,
      swarm: SWARM,
      agent: "ops",
      instanceKey: "k",
      instance: () => instance,
      arm: async () => {
        calls.push("arm");
        return (options.waiting ?? []).map((eventId) => ({ id: `appr_${eventId}`, eventId }) as Approval);
      },
    });
  return { store, calls, resume };
}

describe("resumeTakenOver", () => {
  it("queues the instance's messages for later again and holds nothing when no turn waits", async () => {
    const w = world();
    await w.store.accept(SWARM, event("evt_later", "k", 5_000), 1);
    await w.store.accept(SWARM, event("evt_plain", "k"), 1);
    await w.store.accept(SWARM, event("evt_elsewhere", "other", 5_000), 1);
    expect(await w.resume()).toEqual(["evt_later"]);
    expect(w.calls).toEqual(["arm", "enqueue evt_later resumed"]);
  });

  it("holds the instance while a turn waits for approvals, unless a decision queued that turn again", async () => {
    const held = world({ waiting: ["evt_s"] });
    expect(await held.resume()).toEqual([]);
    expect(held.calls).toEqual(["arm", "awaitApproval"]);
    const queued = world({ waiting: ["evt_s"], holding: ["evt_s"] });
    await queued.resume();
    expect(queued.calls).toEqual(["arm"]);
  });
});
