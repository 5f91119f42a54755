/**
 * The import graph of src/, read from the source text (relative `import`/`export … from` and `import()` of a
 * literal path), and the circles in any graph: what the architecture tests check their floors against.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export const SRC = resolve(import.meta.dir, "../../src");

/** Every .ts file under `dir` (the templates copied into new projects are not source). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "templates" ? [] : sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** The absolute paths `file` imports by a relative specifier. */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)"/g),
    ...text.matchAll(/(?:^|\n)\s*import\s+"(\.{1,2}\/[^"]+)"/g),
    ...text.matchAll(/import\("(\.{1,2}\/[^"]+)"\)/g),
  ].map((match) => match[1] as string);
  return specifiers.map((specifier) => resolve(dirname(file), specifier));
}

/** The import graph of every source file under src/. */
export function importGraph(): Map<string, string[]> {
  return new Map(sourceFiles(SRC).map((file) => [file, importsOf(file)]));
}

/** Each circle of `graph` once it is entered, as `a -> b -> a` in the names `name` gives its nodes. */
export function circlesOf(graph: ReadonlyMap<string, readonly string[]>, name = (node: string) => node): string[] {
  const state = new Map<string, "open" | "done">();
  const circles: string[] = [];
  const visit = (node: string, path: string[]): void => {
    if (state.get(node) === "done") return;
    if (state.get(node) === "open") {
      circles.push([...path.slice(path.indexOf(node)), node].map(name).join(" -> "));
      return;
    }
    state.set(node, "open");
    for (const target of graph.get(node) ?? []) if (graph.has(target)) visit(target, [...path, node]);
    state.set(node, "done");
  };
  for (const node of graph.keys()) visit(node, []);
  return circles;
}
