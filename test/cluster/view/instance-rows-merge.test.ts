import { describe, expect, it } from "bun:test";
import { freshestConversation, mergeInstanceRows } from "../../../src/cluster/view/instance-rows-merge.ts";
import type { InstanceRow } from "../../../src/orchestrator/instances/stored-instances.ts";

const row = (instanceKey: string, status: string, updatedAt?: number): InstanceRow => ({
  agent: "worker",
  instanceKey,
  status,
  queued: 0,
  ...(updatedAt === undefined ? {} : { updatedAt, messages: 2 }),
});

describe("mergeInstanceRows", () => {
  it("lists every node's instances once each, sorted, with the node", () => {
    const rows = mergeInstanceRows([
      { node: "n2", value: [row("b", "idle", 5)] },
      { node: "n1", value: [row("a", "processing", 3)] },
    ]);
    expect(rows.map((item) => `${item.node} ${item.instanceKey} ${item.status}`)).toEqual([
      "n1 a processing",
      "n2 b idle",
    ]);
  });

  it("takes the node that runs an instance over a node that only kept a copy, however recent the copy", () => {
    const rows = mergeInstanceRows([
      { node: "n1", value: [row("a", "terminated", 900)] },
      { node: "n2", value: [row("a", "idle", 100)] },
    ]);
    expect(rows).toEqual([{ ...row("a", "idle", 100), node: "n2" }]);
  });

  it("takes the copy changed last when no node runs it, and the node's name on a tie", () => {
    expect(
      mergeInstanceRows([
        { node: "n1", value: [row("a", "terminated", 100)] },
        { node: "n3", value: [row("a", "terminated", 300)] },
      ])[0]?.node,
    ).toBe("n3");
    expect(
      mergeInstanceRows([
        { node: "n3", value: [row("a", "terminated", 100)] },
        { node: "n1", value: [row("a", "terminated", 100)] },
      ])[0]?.node,
    ).toBe("n1");
  });
});

describe("freshestConversation", () => {
  it("takes the copy changed last, skipping empty ones", () => {
    const best = freshestConversation([
      { node: "n1", messages: ["a"], updatedAt: 100 },
      { node: "n2", messages: ["a", "b", "c"], updatedAt: 300 },
      { node: "n3", messages: [], updatedAt: 900 },
    ]);
    expect(best?.node).toBe("n2");
  });

  it("takes the longer conversation when two copies changed at once, and none when every copy is empty", () => {
    expect(
      freshestConversation([
        { node: "n1", messages: ["a"], updatedAt: 5 },
        { node: "n2", messages: ["a", "b"], updatedAt: 5 },
      ])?.node,
    ).toBe("n2");
    expect(freshestConversation([{ node: "n1", messages: [] }])).toBeUndefined();
  });
});
