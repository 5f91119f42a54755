/**
 * The sub-floors inside a layer, as test/architecture/layers.test.ts keeps the layers: within src/cluster every
 * import between two sub-folders points strictly down (a sub-folder imports only the ones on lower floors, never
 * one beside it or above it), so the sub-folders cannot import each other in a circle, and every file of the layer
 * lives in a sub-folder the map names. The ground is the cluster's wire to NATS; the node composes everything.
 */
import { describe, expect, it } from "bun:test";
import { relative } from "node:path";
import { circlesOf, importGraph, SRC } from "./import-graph.ts";

/** Per layer, each sub-folder's floor: lower numbers are lower floors. */
export const SUB_FLOORS: Record<string, Record<string, number>> = {
  cluster: {
    nats: 0,
    lease: 1,
    answers: 1,
    members: 2,
    intake: 2,
    instances: 3,
    view: 3,
    live: 4,
    reload: 4,
    node: 5,
  },
};

/** `layer/sub` of a file of src/ (`layer/` alone for one at the top of its layer). */
const placeOf = (file: string): { layer: string; sub: string } => {
  const [layer = "", ...rest] = relative(SRC, file).split("/");
  return { layer, sub: rest.length > 1 ? (rest[0] as string) : "" };
};

const graph = importGraph();

for (const [layer, floors] of Object.entries(SUB_FLOORS)) {
  describe(`the sub-floors of src/${layer}`, () => {
    const files = [...graph.keys()].filter((file) => placeOf(file).layer === layer);

    it("has every file in a sub-folder of a known floor", () => {
      const unknown = files.map((file) => placeOf(file).sub).filter((sub) => !(sub in floors));
      expect([...new Set(unknown)]).toEqual([]);
    });

    it("imports between its sub-folders only down the floors", () => {
      const wrong: string[] = [];
      for (const file of files) {
        const from = placeOf(file).sub;
        for (const target of graph.get(file) ?? []) {
          const to = placeOf(target);
          if (to.layer !== layer || to.sub === from) continue;
          if (!((floors[to.sub] ?? Number.POSITIVE_INFINITY) < (floors[from] ?? Number.NEGATIVE_INFINITY)))
            wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it("has no circle between its sub-folders", () => {
      const folders = new Map<string, string[]>();
      for (const file of files) {
        const from = placeOf(file).sub;
        const targets = (graph.get(file) ?? []).map(placeOf).filter((to) => to.layer === layer && to.sub !== from);
        folders.set(from, [...new Set([...(folders.get(from) ?? []), ...targets.map((to) => to.sub)])]);
      }
      expect(circlesOf(folders)).toEqual([]);
    });
  });
}
