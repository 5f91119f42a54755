/**
 * `--fresh` restarts: removes an instance's committed conversation and in-turn events so its next child
 * starts with an empty history. Extension state, workdir and runtime events are kept.
 */
import { existsSync, rmSync } from "node:fs";
import type { InstancePaths } from "../../shared/state-paths.ts";

/** Returns whether there was a conversation to remove. */
export function clearConversation(paths: InstancePaths): boolean {
  const files = [paths.base, paths.events];
  const existed = files.some((file) => existsSync(file));
  for (const file of files) rmSync(file, { force: true });
  return existed;
}
