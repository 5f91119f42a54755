/**
 * `goondan run --watch`: watches goondan.yaml, the bundle's other YAML files (also ones created later with a
 * name the bundle scan reads, e.g. a new agents.yaml) and its prompt, cassette and entry files (with
 * their local imports) through chokidar, debounces bursts of changes, validates the bundle, and hands
 * either the issues (the running swarm stays as it is) or the old and new bundles with what changed
 * (agents, swarm, connections) to the caller. Changes are handled one at a time, in order.
 */
import { watch, type FSWatcher } from "chokidar";
import { resolve, sep } from "node:path";
import type { Clock, TimerHandle } from "../shared/clock.ts";
import { systemClock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import { silentLogger } from "../shared/logger.ts";
import { describe } from "../shared/errors.ts";
import { BUILTIN_PACKAGE, type AnyResource, type Bundle, type ConfigIssue } from "./types.ts";
import { diffBundles, resourceFiles, type BundleDiff } from "./bundle-diff.ts";
import { entryFiles } from "./entry-imports.ts";
import { isBundleFilePath } from "./bundle-files.ts";

const IGNORED_DIRS = /(^|[\\/])(node_modules|\.git)([\\/]|$)/;

export interface BundleChange {
  previous: Bundle;
  next: Bundle;
  /** Absolute paths that changed since `previous` was loaded. */
  changedFiles: string[];
  diff: BundleDiff;
}

export interface WatchBundleOptions {
  /** The bundle running now. */
  initial: Bundle;
  /** Loads and validates the bundle on disk again. */
  load: () => Promise<{ valid: boolean; bundle?: Bundle; errors: ConfigIssue[] }>;
  /** A valid change: apply it (reload the affected agents). Awaited before the next change is handled. */
  onChange: (change: BundleChange) => Promise<void> | void;
  /** An invalid change: report the issues (the watcher itself logs nothing about it); the running bundle stays. */
  onInvalid: (options: { errors: ConfigIssue[]; changedFiles: string[] }) => void;
  /** Default: 200 ms. */
  debounceMs?: number;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /** Poll instead of native events (network file systems). Default: false. */
  usePolling?: boolean;
}

export interface BundleWatcher {
  /** The files watched now (absolute, sorted). */
  files(): string[];
  /** Resolves when the watcher is ready and no change is pending or being handled. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** A resource's files including the local imports of its entry module, limited to the bundle dir. */
export function resourceFilesWithImports(bundle: Bundle, resource: AnyResource): string[] {
  const own = resourceFiles(resource);
  if (resource.kind !== "Tool" && resource.kind !== "Extension" && resource.kind !== "Connector") return own;
  return own.flatMap((entry) => entryFiles({ entry, within: bundle.dir }));
}

/** Every file of the bundle worth watching: goondan.yaml, the files its resources are written in, and their files and imports. */
export function bundleWatchFiles(bundle: Bundle): string[] {
  const inside = resolve(bundle.dir) + sep;
  const files = new Set<string>([resolve(bundle.file)]);
  for (const resource of bundle.resources) {
    if (resource.source.package === BUILTIN_PACKAGE) continue;
    files.add(resolve(resource.source.file));
    for (const file of resourceFilesWithImports(bundle, resource)) if (file.startsWith(inside)) files.add(file);
  }
  return [...files].sort();
}

export async function watchBundle(options: WatchBundleOptions): Promise<BundleWatcher> {
  const clock = options.clock ?? systemClock;
  const debounceMs = options.debounceMs ?? 200;
  const logger = options.logger ?? silentLogger();
  let current = options.initial;
  let watched = new Set(bundleWatchFiles(current));
  const changed = new Set<string>();
  let timer: TimerHandle | undefined;
  let handling: Promise<void> = Promise.resolve();
  let pendingRuns = 0;
  let closed = false;

  /** The last validation failed: then any file in the bundle dir may be the fix (a new tool entry, say). */
  let broken = false;
  const bundleDir = resolve(current.dir);
  // The bundle dir is watched too (new files appear there); its other files only count while broken.
  const watcher: FSWatcher = watch([...watched, bundleDir], {
    ignoreInitial: true,
    usePolling: options.usePolling ?? false,
    interval: 100,
    depth: 8,
    ignored: (path: string) => IGNORED_DIRS.test(path),
  });
  const ready = new Promise<void>((resolveReady) => watcher.once("ready", () => resolveReady()));

  const handle = async (files: string[]): Promise<void> => {
    const loaded = await options.load();
    if (closed) return;
    broken = !loaded.valid || loaded.bundle === undefined;
    if (!loaded.valid || loaded.bundle === undefined) {
      // Reported once, by the caller (onInvalid), which owns how the issues reach the operator.
      options.onInvalid({ errors: loaded.errors, changedFiles: files });
      return;
    }
    const previous = current;
    const next = loaded.bundle;
    const filesOf = (resource: AnyResource) =>
      resourceFilesWithImports(resource.source.package === BUILTIN_PACKAGE ? previous : next, resource);
    const diff = diffBundles({ previous, next, changedFiles: files, filesOf });
    current = next;
    const nextWatched = new Set(bundleWatchFiles(next));
    const added = [...nextWatched].filter((file) => !watched.has(file) && !file.startsWith(bundleDir + sep));
    if (added.length > 0) watcher.add(added);
    watched = nextWatched;
    logger.info(
      { files, agents: diff.agents, swarmChanged: diff.swarmChanged, connections: diff.connections },
      "bundle changed; reloading",
    );
    await options.onChange({ previous, next, changedFiles: files, diff });
  };

  const flush = () => {
    timer = undefined;
    const files = [...changed].sort();
    changed.clear();
    pendingRuns++;
    handling = handling
      .then(() => handle(files))
      .catch((error: unknown) => logger.error({ error: describe(error) }, "bundle reload failed"))
      .finally(() => {
        pendingRuns--;
      });
  };

  watcher.on("all", (event, path) => {
    if (closed || event === "addDir" || event === "unlinkDir") return;
    const file = resolve(path);
    if (!watched.has(file) && !broken && !isBundleFilePath({ dir: bundleDir, path: file })) return;
    changed.add(file);
    if (timer) clock.clearTimeout(timer);
    timer = clock.setTimeout(flush, debounceMs);
  });
  watcher.on("error", (error) => logger.warn({ error: describe(error) }, "file watcher error"));
  await ready;

  return {
    files: () => [...watched].sort(),
    async idle() {
      await ready;
      while (timer !== undefined || pendingRuns > 0) {
        if (timer !== undefined) await new Promise((wake) => setTimeout(wake, 10));
        else await handling;
      }
    },
    async close() {
      closed = true;
      if (timer) clock.clearTimeout(timer);
      timer = undefined;
      await watcher.close();
    },
  };
}
