/**
 * Where a built agent entry bundle (agent-entry-bundle.ts) is kept between orchestrator starts, so that a start
 * whose sources have not changed reuses the last build instead of bundling about 400 modules again (half a second
 * of a start on a 2-core machine). A cache directory holds `current.json`, naming its build and every file that
 * went into it with the size and mtime it had then, and the builds themselves (`b-<pid>-<time>/`). A build is
 * reused only when Bun's version, the entry and every input's size and mtime still match.
 *
 * Each orchestrator marks the build it uses (`in-use-<pid>` inside it): its children load the bundle's split
 * chunks lazily, so a build is removed only when it is no longer current and no process that marked it is alive. A
 * mark with this process's own pid counts only if this process made it: in a container every start has the same
 * pid, and an earlier start's marks must not keep its builds forever.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

/** One input of a build: its absolute path, size and mtime (ms) when it was built. */
type Input = [path: string, size: number, mtimeMs: number];

interface Manifest {
  bun: string;
  source: string;
  /** The build's directory, relative to the cache's. */
  build: string;
  /** The entry file, relative to the build's directory: a state root moved or copied keeps its build. */
  entry: string;
  inputs: Input[];
}

const MANIFEST = "current.json";

/** The builds this process marked. */
const markedHere = new Set<string>();

function mark(build: string): void {
  writeFileSync(join(build, `in-use-${process.pid}`), "");
  markedHere.add(build);
}

/** Whether the process that marked `build` with `pid` still runs (EPERM: another user's process, alive). */
function inUse(pid: number, build: string): boolean {
  if (pid === process.pid) return markedHere.has(build);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The cached entry for `source` in `dir`, marked as used by this process, or undefined when it must be built. */
export function cachedEntry(dir: string, source: string): string | undefined {
  const manifest = readManifest(dir);
  if (manifest === undefined || manifest.bun !== Bun.version || manifest.source !== source) return undefined;
  if (!manifest.inputs.every(unchanged)) return undefined;
  const build = join(dir, manifest.build);
  try {
    mark(build);
  } catch {
    return undefined;
  }
  // Marked first, then checked: a cleanup that ran before the mark may have removed it.
  const entry = join(build, manifest.entry);
  return existsSync(entry) ? entry : undefined;
}

/** A new build's directory in `dir`, made and marked as used by this process before anything is built into it. */
export function newBuildDirectory(dir: string): string {
  const build = join(dir, `b-${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(build, { recursive: true, mode: 0o700 });
  mark(build);
  return build;
}

/**
 * Makes `build` (holding `entry`, built from `inputs`, relative to `cwd`, by a build that started at `startedAt`,
 * epoch ms) the current one. It is not recorded when an input changed after the build started: what was read may
 * be older than what is there now, nor when the manifest cannot be written (a full disk): the build still serves
 * this start. Returns whether it was recorded.
 */
export function recordBuild(options: {
  dir: string;
  source: string;
  build: string;
  entry: string;
  inputs: readonly string[];
  cwd: string;
  startedAt: number;
}): boolean {
  const inputs: Input[] = [];
  for (const input of options.inputs) {
    const path = resolve(options.cwd, input);
    try {
      const stat = statSync(path);
      if (!stat.isFile()) continue;
      if (stat.mtimeMs >= options.startedAt) return false;
      inputs.push([path, stat.size, stat.mtimeMs]);
    } catch {
      // not a file (a virtual module): nothing to compare later
    }
  }
  const manifest: Manifest = {
    bun: Bun.version,
    source: options.source,
    build: options.build.slice(options.dir.length + 1),
    entry: relative(options.build, options.entry),
    inputs,
  };
  const staging = join(options.dir, `${MANIFEST}.${process.pid}`);
  try {
    writeFileSync(staging, JSON.stringify(manifest));
    renameSync(staging, join(options.dir, MANIFEST));
    return true;
  } catch {
    rmSync(staging, { force: true });
    return false;
  }
}

/** Removes the builds that are not current and that no live process uses, and dead processes' marks. */
export function removeUnusedBuilds(dir: string): void {
  const current = readManifest(dir)?.build;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith("b-")) continue;
    const build = join(dir, name);
    const users = readdirSync(build)
      .filter((file) => file.startsWith("in-use-"))
      .map((file) => Number(file.slice("in-use-".length)));
    const alive = users.filter((pid) => inUse(pid, build));
    for (const pid of users) if (!alive.includes(pid)) rmSync(join(build, `in-use-${pid}`), { force: true });
    if (name !== current && alive.length === 0) rmSync(build, { recursive: true, force: true });
  }
}

function readManifest(dir: string): Manifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), "utf8")) as Manifest;
    return Array.isArray(manifest.inputs) && typeof manifest.build === "string" ? manifest : undefined;
  } catch {
    return undefined;
  }
}

function unchanged([path, size, mtimeMs]: Input): boolean {
  try {
    const stat = statSync(path);
    return stat.size === size && stat.mtimeMs === mtimeMs;
  } catch {
    return false;
  }
}
