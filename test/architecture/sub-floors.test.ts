/**
 * Inside a layer of src/, its sub-folders stand on floors of their own: every import from one sub-folder to another
 * points down (or across one floor), and no sub-folders import each other in a circle. Files directly in the layer's
 * folder (src/agent/entry.ts) sit on top of all its sub-folders. Every sub-folder of a layer named here must have a
 * floor, so a new one is placed the day it is made. Read from the source text, like layers.test.ts.
 */
import { describe, expect, it } from "bun:test";
import { relative } from "node:path";
import { circlesOf, importGraph, SRC } from "./import-graph.ts";

/**
 * Each layer's sub-folders and their floors; lower numbers are lower floors. To place a layer's sub-folders, add
 * its entry here.
 */
const SUB_FLOORS: Record<string, Record<string, number>> = {
  // The agent process, from the process down to its leaves: the IPC child drives one instance, which loads the
  // extensions, which register middleware into the turn loop, which calls the model on the conversation.
  agent: { host: 6, child: 5, instance: 4, extensions: 3, loop: 2, model: 1, conversation: 0 },
  // A cluster node, from the node that composes everything down to its wire to NATS.
  cluster: {
    node: 5,
    live: 4,
    reload: 4,
    instances: 3,
    view: 3,
    members: 2,
    intake: 2,
    lease: 1,
    answers: 1,
    nats: 0,
  },
};

/** Where a file stands: its layer and its sub-folder (undefined for a file directly in the layer's folder). */
function placeOf(file: string): { layer: string; subFolder: string | undefined } {
  const parts = relative(SRC, file).split("/");
  return { layer: parts[0] as string, subFolder: parts.length > 2 ? parts[1] : undefined };
}

const floorOf = (floors: Record<string, number>, subFolder: string | undefined): number =>
  subFolder === undefined ? Number.POSITIVE_INFINITY : (floors[subFolder] ?? Number.NaN);

/** Imports inside a layer of `subFloors` that run from a lower sub-floor up to a higher one. */
function arrowsBackUp(
  graph: ReadonlyMap<string, readonly string[]>,
  subFloors: Record<string, Record<string, number>>,
): string[] {
  const wrong: string[] = [];
  for (const [file, imports] of graph) {
    const from = placeOf(file);
    const floors = subFloors[from.layer];
    if (floors === undefined) continue;
    for (const target of imports) {
      const to = placeOf(target);
      if (to.layer !== from.layer || to.subFolder === from.subFolder) continue;
      if (floorOf(floors, to.subFolder) > floorOf(floors, from.subFolder))
        wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
  }
  return wrong;
}

/** Circles between the sub-folders of each layer of `subFloors`, as `layer/a -> layer/b -> layer/a`. */
function subFolderCircles(
  graph: ReadonlyMap<string, readonly string[]>,
  subFloors: Record<string, Record<string, number>>,
): string[] {
  const folders = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const from = placeOf(file);
    if (subFloors[from.layer] === undefined || from.subFolder === undefined) continue;
    const name = `${from.layer}/${from.subFolder}`;
    const targets = folders.get(name) ?? new Set<string>();
    folders.set(name, targets);
    for (const target of imports) {
      const to = placeOf(target);
      if (to.layer === from.layer && to.subFolder !== undefined && to.subFolder !== from.subFolder)
        targets.add(`${to.layer}/${to.subFolder}`);
    }
  }
  return circlesOf(new Map([...folders].map(([folder, targets]) => [folder, [...targets]])));
}

const graph = importGraph();
const at = (path: string): string => `${SRC}/${path}`;

describe("the sub-floors of a layer", () => {
  it("gives every sub-folder of a placed layer a floor", () => {
    const unplaced = [...graph.keys()].map(placeOf).flatMap(({ layer, subFolder }) => {
      const floors = SUB_FLOORS[layer];
      return floors === undefined || subFolder === undefined || subFolder in floors ? [] : [`${layer}/${subFolder}`];
    });
    expect([...new Set(unplaced)]).toEqual([]);
  });

  it("has no import running from a lower sub-floor up to a higher one", () => {
    expect(arrowsBackUp(graph, SUB_FLOORS)).toEqual([]);
  });

  it("has no circle between the sub-folders of a layer", () => {
    expect(subFolderCircles(graph, SUB_FLOORS)).toEqual([]);
  });

  it("finds an arrow back up, and an import of a file that sits on top of the layer", () => {
    const floors = { agent: { child: 1, loop: 0 } };
    const back = new Map([[at("agent/loop/run-turn.ts"), [at("agent/child/agent-child.ts"), at("agent/entry.ts")]]]);
    expect(arrowsBackUp(back, floors)).toEqual([
      "agent/loop/run-turn.ts -> agent/child/agent-child.ts",
      "agent/loop/run-turn.ts -> agent/entry.ts",
    ]);
    const down = new Map([[at("agent/entry.ts"), [at("agent/child/agent-child.ts")]]]);
    expect(arrowsBackUp(down, floors)).toEqual([]);
  });

  it("finds a circle between two sub-folders on one floor", () => {
    const floors = { cluster: { lease: 0, node: 0 } };
    const circle = new Map([
      [at("cluster/lease/lease.ts"), [at("cluster/node/node.ts")]],
      [at("cluster/node/node.ts"), [at("cluster/lease/lease.ts")]],
    ]);
    expect(arrowsBackUp(circle, floors)).toEqual([]);
    expect(subFolderCircles(circle, floors)).toEqual(["cluster/lease -> cluster/node -> cluster/lease"]);
  });
});
