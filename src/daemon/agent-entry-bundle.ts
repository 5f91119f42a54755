/**
 * Bundles the agent entry script (AGENT_ENTRY_SCRIPT) once per orchestrator start with Bun.build, so every
 * child loads one pre-linked file (plus lazily split provider chunks) instead of resolving hundreds of source
 * modules: spawn-to-ready and idle memory drop to near a bare Bun child's (see bench/agent-spawn.ts). Tool,
 * extension and connector modules are still imported by path at run time, so reloads see edited files.
 * Any build failure falls back to the source entry with a warning: bundling is an optimisation, never a
 * reason not to start. The bundle carries no source map (loading one costs ~10 ms a spawn); set
 * GOONDAN_AGENT_FROM_SOURCE=1 to run children from source with readable stack traces.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { AGENT_ENTRY_SCRIPT } from "../protocol/child-entry.ts";
import type { Logger } from "../shared/logger.ts";

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
  const cache = join(options.stateRoot, "cache");
  const outdir = join(cache, `agent-entry-${process.pid}-${Date.now().toString(36)}`);
  try {
    mkdirSync(cache, { recursive: true });
    removeStaleBuilds(cache);
    const started = performance.now();
    const result = await Bun.build({
      entrypoints: [sourceEntry],
      target: "bun",
      outdir,
      splitting: true,
      sourcemap: "none",
    });
    if (!result.success) throw new AggregateError(result.logs, result.logs.map(String).join("; "));
    const entry = result.outputs.find((output) => output.kind === "entry-point");
    if (entry === undefined) throw new Error("Bun.build produced no entry point");
    options.logger.debug(
      { ms: Math.round(performance.now() - started), files: result.outputs.length },
      "agent entry bundled",
    );
    return entry.path;
  } catch (error) {
    options.logger.warn({ err: error }, "could not bundle the agent entry; children start from source (slower)");
    rmSync(outdir, { recursive: true, force: true });
    return sourceEntry;
  }
}

/** Builds left by earlier runs whose orchestrator is gone. */
function removeStaleBuilds(cache: string): void {
  for (const name of readdirSync(cache)) {
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
