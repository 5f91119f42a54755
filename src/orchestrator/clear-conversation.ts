/**
 * `--fresh` restarts: removes an instance's committed conversation and in-turn events so its next child
 * starts with an empty history. Extension state, workdir and runtime events are kept.
 */
import { rmSync } from "node:fs";
import type { InstancePaths } from "../shared/state-paths.ts";

export function clearConversation(paths: InstancePaths): void {
  for (const file of [paths.base, paths.events]) rmSync(file, { force: true });
}
