/**
 * The store's seam is named from inside: a file of src/ outside src/store reaches a backend of the store (each
 * sub-folder of src/store: nats, sqlite) only through that backend's entry, its index.ts, or through the files at
 * the top of src/store (store.ts, open-state-store.ts). The files behind an entry are the backend's own to move.
 */
import { describe, expect, it } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { importGraph, SRC } from "./import-graph.ts";

const STORE = join(SRC, "store");
const BACKENDS = readdirSync(STORE).filter((name) => statSync(join(STORE, name)).isDirectory());

/** The backend `file` belongs to, when it is one of a backend's files. */
const backendOf = (file: string): string | undefined => {
  const [top, backend, ...rest] = relative(SRC, file).split("/");
  return top === "store" && rest.length > 0 ? backend : undefined;
};

/** Each import of a backend's file other than its entry, made from outside src/store, as `from -> to`. */
export function pastTheEntries(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const wrong: string[] = [];
  for (const [file, imports] of graph) {
    if (relative(SRC, file).startsWith("store/")) continue;
    for (const target of imports) {
      const backend = backendOf(target);
      if (backend !== undefined && target !== join(STORE, backend, "index.ts"))
        wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
  }
  return wrong;
}

describe("the store's backends", () => {
  it("each have one entry file", () => {
    expect(BACKENDS.length).toBeGreaterThan(0);
    for (const backend of BACKENDS) expect(statSync(join(STORE, backend, "index.ts")).isFile()).toBe(true);
  });

  it("are reached from outside src/store only through their entries", () => {
    expect(pastTheEntries(importGraph())).toEqual([]);
  });

  it("would name an import that passes an entry", () => {
    const node = join(SRC, "cluster/node/node.ts");
    const graph = new Map([
      [node, [join(STORE, "nats/index.ts"), join(STORE, "nats/instance-state-log.ts"), join(STORE, "store.ts")]],
      [join(STORE, "nats/index.ts"), [join(STORE, "nats/instance-state-log.ts")]],
    ]);
    expect(pastTheEntries(graph)).toEqual(["cluster/node/node.ts -> store/nats/instance-state-log.ts"]);
  });
});
