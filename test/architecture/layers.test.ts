/**
 * The import graph of src/ keeps the layers of ../shared/STYLE.md: every import points down (or within its own
 * folder), the three process layers (agent, connector, orchestrator) never import each other, and no files import
 * each other in a circle. Read from the source text, so a new file is checked the day it is written.
 */
import { describe, expect, it } from "bun:test";
import { relative } from "node:path";
import { circlesOf, importGraph, SRC } from "./import-graph.ts";

/** Lower numbers are lower floors; the process layers share one floor and may not import each other. */
const FLOORS: Record<string, number> = {
  shared: 0,
  protocol: 1,
  config: 2,
  tools: 3,
  supervision: 4,
  store: 4,
  observability: 4,
  agent: 5,
  connector: 5,
  orchestrator: 5,
  cluster: 6,
  http: 7,
  client: 7,
  daemon: 8,
  eval: 9,
  embed: 9,
  cli: 10,
};
/** The built-in package is loaded by path into children; it may use the public surface and the layers a tool author sees. */
const BASE_MAY_IMPORT = new Set(["shared", "protocol", "config", "tools", "connector", "index.ts", "base"]);

const layerOf = (file: string): string => relative(SRC, file).split("/")[0] as string;

const graph = importGraph();
const files = [...graph.keys()];

describe("the layers of src/", () => {
  it("has every file in a known layer", () => {
    const unknown = files
      .map(layerOf)
      .filter((layer) => !(layer in FLOORS) && layer !== "base" && layer !== "index.ts");
    expect([...new Set(unknown)]).toEqual([]);
  });

  it("imports only down the floors, never across the process layers", () => {
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      const from = layerOf(file);
      for (const target of imports) {
        const to = layerOf(target);
        if (to === from) continue;
        const name = `${relative(SRC, file)} -> ${relative(SRC, target)}`;
        if (from === "base") {
          if (!BASE_MAY_IMPORT.has(to)) wrong.push(name);
        } else if (from === "index.ts") {
          continue; // the public surface re-exports from every layer
        } else if (to === "base" || to === "index.ts" || (FLOORS[to] as number) >= (FLOORS[from] as number)) {
          wrong.push(name);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("has no circle of imports", () => {
    expect(circlesOf(graph, (file) => relative(SRC, file))).toEqual([]);
  });
});
