/**
 * Which YAML files make up a bundle, by the public Goondan bundle spec: besides goondan.yaml, every file
 * under the bundle directory (recursively) whose name is one of `model(s)`, `agent(s)`, `tool(s)`,
 * `extension(s)`, `connector(s)`, `connection(s)`, `swarm(s)`, `resources` or `goondan`, with `.yaml` or
 * `.yml`. Other YAML files (docker-compose.yml, pnpm-lock.yaml…) are not resources. `node_modules`, `dist`
 * and `.git` are never entered, and two rules of ours keep the scan to the bundle itself: a directory
 * holding its own goondan.yaml is another bundle and is never merged into this one, and hidden directories
 * (`.goondan`, `.venv`…) are skipped, so files an agent writes into a state root kept there never become
 * resources. Symlinks are not followed. The order is the public spec's: sorted by path. Ours too: every YAML file
 * directly in a top-level `evals/` directory is read (its Eval documents are `goondan eval`'s cases).
 */
import { readdirSync } from "node:fs";
import { basename, extname, join, relative, sep } from "node:path";

const RESOURCE_FILE_NAMES: ReadonlySet<string> = new Set([
  "goondan",
  "model",
  "models",
  "agent",
  "agents",
  "tool",
  "tools",
  "extension",
  "extensions",
  "connector",
  "connectors",
  "connection",
  "connections",
  "swarm",
  "swarms",
  "resources",
]);
/** The top-level directory whose YAML files are all read, whatever their names: the bundle's Eval cases. */
export const EVALS_DIRECTORY = "evals";
const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(["node_modules", "dist"]);
export const MAIN_FILE_NAMES = ["goondan.yaml", "goondan.yml"] as const;

/** Whether a file name (not a path) is one the bundle scan reads as resources. */
export function isResourceFileName(name: string): boolean {
  const extension = extname(name).toLowerCase();
  if (extension !== ".yaml" && extension !== ".yml") return false;
  return RESOURCE_FILE_NAMES.has(basename(name, extname(name)).toLowerCase());
}

/** Whether a directory entry is never scanned: build output, dependencies, hidden directories. */
export function isSkippedDirectoryName(name: string): boolean {
  return name.startsWith(".") || SKIPPED_DIRECTORIES.has(name.toLowerCase());
}

/**
 * Whether `path` (absolute, inside `dir`) is a file the scan of the bundle at `dir` would read. Used by the
 * watcher for files that appear after the bundle was loaded; checks names only, not nested bundles.
 */
export function isBundleFilePath(options: { dir: string; path: string }): boolean {
  const rel = relative(options.dir, options.path);
  if (rel === "" || rel.startsWith("..")) return false;
  const parts = rel.split(sep);
  const name = parts.pop() ?? "";
  if (parts.length === 1 && parts[0] === EVALS_DIRECTORY && /\.ya?ml$/i.test(name)) return true;
  return parts.every((part) => !isSkippedDirectoryName(part)) && isResourceFileName(name);
}

/** The absolute paths of the bundle's YAML files, the main file included, sorted by path. */
export function bundleFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (current: string, top: boolean): void => {
    const evals = current === join(dir, EVALS_DIRECTORY);
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    if (!top && entries.some((entry) => entry.isFile() && (MAIN_FILE_NAMES as readonly string[]).includes(entry.name)))
      return;
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!isSkippedDirectoryName(entry.name)) walk(join(current, entry.name), false);
      } else if (entry.isFile() && (isResourceFileName(entry.name) || (evals && /\.ya?ml$/i.test(entry.name)))) {
        found.push(join(current, entry.name));
      }
    }
  };
  walk(dir, true);
  return found.sort((left, right) => relative(dir, left).localeCompare(relative(dir, right)));
}
