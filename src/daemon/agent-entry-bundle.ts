/**
 * Bundles the agent entry script (AGENT_ENTRY_SCRIPT) with Bun.build, so every child loads one pre-linked file
 * (plus lazily split provider chunks) instead of resolving hundreds of source modules: spawn-to-ready and idle
 * memory drop to near a bare Bun child's (see bench/agent-spawn.ts). The build is kept under the state root
 * (`cache/agent-entry`, agent-entry-cache.ts) and reused by the next start while none of its inputs changed: a
 * restart skips half a second of bundling. It stays there, not in goondan's own folder, because an agent process
 * sees the state root only read-only (its sandbox), and every later agent process loads this build. Tool,
 * extension and connector modules are still imported by path at run time, so reloads see edited files.
 * Any build failure falls back to the source entry with a warning: bundling is an optimisation, never a
 * reason not to start. The bundle carries no source map (loading one costs ~10 ms a spawn); set
 * GOONDAN_AGENT_FROM_SOURCE=1 to run children from source with readable stack traces.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { AGENT_ENTRY_SCRIPT } from "../protocol/child-entry.ts";
import type { Logger } from "../shared/logger.ts";
import { cachedEntry, newBuildDirectory, recordBuild, removeUnusedBuilds } from "./agent-entry-cache.ts";

export interface BundleAgentEntryOptions {
  stateRoot: string;
  logger: Logger;
  /** Default: AGENT_ENTRY_SCRIPT. */
  sourceEntry?: string;
  /** Default: process.env. */
  env?: Record<string, string | undefined>;
}

export async function bundleAgentEntry(options: BundleAgentEntryOptions): Promise<string> {
  const sourceEntry = options.sourceEntry ?? AGENT_ENTRY_SCRIPT;
  if ((options.env ?? process.env).GOONDAN_AGENT_FROM_SOURCE === "1") return sourceEntry;
  const stateCache = join(options.stateRoot, "cache");
  let build: string | undefined;
  try {
    removeLegacyBuilds(stateCache);
    const dir = join(stateCache, "agent-entry");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    removeUnusedBuilds(dir);
    const cached = cachedEntry(dir, sourceEntry);
    if (cached !== undefined) {
      options.logger.debug({ entry: cached }, "agent entry bundle reused");
      return cached;
    }
    build = newBuildDirectory(dir);
    const startedAt = Date.now();
    const started = performance.now();
    const result = await Bun.build({
      entrypoints: [sourceEntry],
      target: "bun",
      outdir: build,
      splitting: true,
      sourcemap: "none",
      metafile: true,
    });
    if (!result.success) throw new AggregateError(result.logs, result.logs.map(String).join("; "));
    const entry = result.outputs.find((output) => output.kind === "entry-point");
    if (entry === undefined) throw new Error("Bun.build produced no entry point");
    const inputs = Object.keys(result.metafile?.inputs ?? {});
    recordBuild({ dir, source: sourceEntry, build, entry: entry.path, inputs, cwd: process.cwd(), startedAt });
    options.logger.debug(
      { ms: Math.round(performance.now() - started), files: result.outputs.length, inputs: inputs.length },
      "agent entry bundled",
    );
    return entry.path;
  } catch (error) {
    options.logger.warn({ err: error }, "could not bundle the agent entry; children start from source (slower)");
    if (build !== undefined) rmSync(build, { recursive: true, force: true });
    return sourceEntry;
  }
}

/** Builds of the layout before the cache (`cache/agent-entry-<pid>-<time>`) whose orchestrator is gone. */
function removeLegacyBuilds(cache: string): void {
  let names: string[];
  try {
    names = readdirSync(cache);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^agent-entry-(\d+)-/.exec(name);
    if (match === null || isAlive(Number(match[1]))) continue;
    rmSync(join(cache, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
