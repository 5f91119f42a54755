import { describe, expect, it } from "bun:test";
import { chooseNode, placementCandidates, type PlacementCandidate } from "../../../src/cluster/members/placement.ts";

/** Place `count` instances one after another, each choice seeing the ones before it. */
function placeAll(nodes: PlacementCandidate[], count: number): Map<string, number> {
  const candidates = nodes.map((node) => ({ ...node }));
  for (let index = 0; index < count; index++) {
    const chosen = chooseNode({ instance: `coder/user-${index}`, candidates });
    if (chosen === undefined) break;
    candidates.find((candidate) => candidate.node === chosen)!.live += 1;
  }
  return new Map(candidates.map((candidate) => [candidate.node, candidate.live]));
}

describe("chooseNode", () => {
  it("spreads 20 instances over 2 equal nodes so neither holds more than 60%", () => {
    const counts = placeAll(
      [
        { node: "a", maxProcesses: 64, live: 0 },
        { node: "b", maxProcesses: 64, live: 0 },
      ],
      20,
    );
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(12);
    expect(counts.get("a")! + counts.get("b")!).toBe(20);
  });

  it("fills nodes in proportion to their maxProcesses", () => {
    const counts = placeAll(
      [
        { node: "small", maxProcesses: 10, live: 0 },
        { node: "big", maxProcesses: 30, live: 0 },
      ],
      20,
    );
    expect(counts.get("small")).toBe(5);
    expect(counts.get("big")).toBe(15);
  });

  it("passes over full and excluded nodes, and gives undefined when none has room", () => {
    const candidates = [
      { node: "full", maxProcesses: 2, live: 2 },
      { node: "gone", maxProcesses: 8, live: 0 },
      { node: "ok", maxProcesses: 8, live: 7 },
    ];
    expect(chooseNode({ instance: "x", candidates, exclude: new Set(["gone"]) })).toBe("ok");
    expect(chooseNode({ instance: "x", candidates: [{ node: "full", maxProcesses: 2, live: 2 }] })).toBeUndefined();
    expect(chooseNode({ instance: "x", candidates: [] })).toBeUndefined();
  });

  it("breaks ties by instance, the same way every time, so nodes deciding at once from one view spread their picks", () => {
    const candidates = ["a", "b", "c", "d"].map((node) => ({ node, maxProcesses: 64, live: 0 }));
    const picks = new Map<string, number>();
    for (let index = 0; index < 400; index++) {
      const chosen = chooseNode({ instance: `i-${index}`, candidates })!;
      expect(chooseNode({ instance: `i-${index}`, candidates: [...candidates].reverse() })).toBe(chosen);
      picks.set(chosen, (picks.get(chosen) ?? 0) + 1);
    }
    // 400 independent picks over 4 nodes: each gets roughly 100 (a node with under 60 or over 140 is not spreading).
    for (const count of picks.values()) expect(count).toBeGreaterThan(60);
    expect(Math.max(...picks.values())).toBeLessThan(140);
  });
});

describe("placementCandidates", () => {
  it("counts a node's load as the larger of its heartbeat and its leases", () => {
    const candidates = placementCandidates(
      [
        { node: "a", maxProcesses: 4, live: 1 },
        { node: "b", maxProcesses: 4, live: 3 },
      ],
      new Map([
        ["a", 2],
        ["b", 1],
      ]),
    );
    expect(candidates).toEqual([
      { node: "a", maxProcesses: 4, live: 2 },
      { node: "b", maxProcesses: 4, live: 3 },
    ]);
  });

  it("leaves out a node that drains (it refused the cluster's last reload), however idle", () => {
    const draining = {
      code: "E_CLUSTER_BUNDLE_MISMATCH",
      message: "another bundle",
      generation: 2,
      since: "2026-01-01T00:00:00.000Z",
    };
    const candidates = placementCandidates(
      [
        { node: "a", maxProcesses: 4, live: 3 },
        { node: "b", maxProcesses: 64, live: 0, draining },
      ],
      new Map(),
    );
    expect(candidates).toEqual([{ node: "a", maxProcesses: 4, live: 3 }]);
    expect(chooseNode({ instance: "x", candidates })).toBe("a");
    expect(
      chooseNode({
        instance: "x",
        candidates: placementCandidates([{ node: "b", maxProcesses: 64, live: 0, draining }], new Map()),
      }),
    ).toBeUndefined();
  });
});
