/**
 * The held calls read from any node (held-reads.ts): a node answers for the instances it runs only (its stale copies
 * of others' left out), the answers merge into each call once with its node, oldest first, and of an approval's
 * copies the running node's wins, then a decided one.
 */
import { describe, expect, it } from "bun:test";
import { bestCopy, mergeHeld, ownCopy, ownHeld, type HeldHost } from "../../../src/cluster/view/held-reads.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import type { Approval } from "../../../src/protocol/approval.ts";
import { TIMER_APPROVER } from "../../../src/protocol/suspension.ts";

const approval = (id: string, instanceKey: string, requestedAt: number, extra: Partial<Approval> = {}): Approval => ({
  id,
  agent: "ops",
  instanceKey,
  eventId: `evt_${id}`,
  turnId: "turn",
  traceId: "t",
  toolCallId: `call_${id}`,
  toolName: "effects__append",
  arguments: {},
  requestedAt,
  ...extra,
});
const later = (id: string, instanceKey: string, notBefore: number) =>
  ({ id, agent: "ops", instanceKey, notBefore }) as AgentEvent;

function host(approvals: Approval[], suspended: Approval[], scheduled: AgentEvent[]): HeldHost {
  return {
    approvals: {
      pending: async () => approvals,
      suspended: async () => suspended,
      get: async (id) => [...approvals, ...suspended].find((one) => one.id === id),
    },
    scheduled: async () => scheduled,
  };
}

describe("held-reads", () => {
  it("answers for the instances the node runs only", async () => {
    const nap = approval("nap", "mine", 3, { approvers: [TIMER_APPROVER] });
    const stale = host([approval("a", "moved", 1), approval("b", "mine", 2)], [nap], [later("e", "moved", 9)]);
    const runs = (_agent: string, instanceKey: string) => instanceKey === "mine";
    expect(await ownHeld(stale, runs)).toEqual({ approvals: [approval("b", "mine", 2)], suspended: [nap], later: [] });
    expect(await ownCopy(stale, runs, "a")).toEqual({ approval: approval("a", "moved", 1), runs: false });
    expect(await ownCopy(stale, runs, "b")).toEqual({ approval: approval("b", "mine", 2), runs: true });
    expect(await ownCopy(stale, runs, "zzz")).toEqual({ approval: null, runs: false });
  });

  it("merges every node's answer into each call once, oldest first, with its node", () => {
    const merged = mergeHeld([
      { node: "n1", value: { approvals: [approval("b", "k2", 20)], suspended: [], later: [later("e2", "k", 50)] } },
      {
        node: "n2",
        value: {
          approvals: [approval("a", "k1", 10), approval("b", "k2", 20)],
          suspended: [],
          later: [later("e1", "k", 40)],
        },
      },
    ]);
    expect(merged.approvals.map((row) => [row.id, row.node])).toEqual([
      ["a", "n2"],
      ["b", "n1"],
    ]);
    expect(merged.later.map((row) => [row.id, row.node])).toEqual([
      ["e1", "n2"],
      ["e2", "n1"],
    ]);
  });

  it("goes by the running node's copy, else a decided one, else any", () => {
    const pending = approval("a", "k", 1);
    const decided = { ...pending, decision: { decision: "approve" as const, decidedAt: 5 } };
    expect(
      bestCopy([
        { approval: pending, runs: false },
        { approval: decided, runs: false },
      ]),
    ).toEqual(decided);
    expect(
      bestCopy([
        { approval: decided, runs: false },
        { approval: pending, runs: true },
      ]),
    ).toEqual(pending);
    expect(
      bestCopy([
        { approval: null, runs: false },
        { approval: pending, runs: false },
      ]),
    ).toEqual(pending);
    expect(bestCopy([{ approval: null, runs: false }])).toBeUndefined();
  });
});
