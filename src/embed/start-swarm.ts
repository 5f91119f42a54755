/**
 * `import { startSwarm } from "goondan"`: runs a swarm from a bundle path or an in-memory bundle and gives back the
 * typed client of its API plus `stop()`. Under Bun the orchestrator runs in the caller's process; under Node, which
 * cannot run it (Bun.spawn, bun:sqlite), it runs as a `goondan run` child under Bun (swarm-options.ts `mode`). The
 * in-process half is imported only when used, so Node never loads a Bun API.
 */
import { startChildSwarm } from "./child-swarm.ts";
import type { RunningSwarm, StartSwarmOptions } from "./swarm-options.ts";

export type { RunningSwarm, StartSwarmOptions } from "./swarm-options.ts";

export async function startSwarm(options: StartSwarmOptions): Promise<RunningSwarm> {
  const underBun = process.versions.bun !== undefined;
  const mode = options.mode ?? (underBun ? "in-process" : "child");
  if (mode === "child") return startChildSwarm(options);
  if (!underBun)
    throw new TypeError(
      `startSwarm: mode "in-process" needs Bun (the orchestrator uses Bun.spawn and bun:sqlite); this is Node ${process.versions.node}: use mode "child" (the default here)`,
    );
  const { startInProcessSwarm } = await import("./in-process-swarm.ts");
  return startInProcessSwarm(options);
}
