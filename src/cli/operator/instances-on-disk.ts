/**
 * The instances an operator can see without a running orchestrator: the directories under
 * `<state root>/workspaces/<swarm instanceKey>/instances/<agent>/<instanceKey>/` (SPEC §5), with the
 * names read back from their file-system-safe form (or, for a bounded one, from the instance's records).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { instanceKeyOfDir, nameOfDir } from "../../shared/recorded-names.ts";
import { subdirectories } from "../../shared/subdirectories.ts";

export interface InstanceOnDisk {
  swarmInstanceKey: string;
  agent: string;
  instanceKey: string;
  dir: string;
  runtimeEvents: string;
  /** Committed conversation messages (lines of base.jsonl). */
  messages: number;
  /** Last change of any of its top-level files, ISO time. */
  updatedAt: string | undefined;
}

function countLines(file: string): number {
  try {
    return readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").length;
  } catch {
    return 0;
  }
}

function lastChange(dir: string): string | undefined {
  let latest = 0;
  try {
    for (const name of readdirSync(dir)) latest = Math.max(latest, statSync(join(dir, name)).mtimeMs);
  } catch {
    return undefined;
  }
  return latest === 0 ? undefined : new Date(latest).toISOString();
}

export function listInstancesOnDisk(options: { stateRoot: string }): InstanceOnDisk[] {
  const workspaces = join(options.stateRoot, "workspaces");
  if (!existsSync(workspaces)) return [];
  const found: InstanceOnDisk[] = [];
  for (const swarmDir of subdirectories(workspaces)) {
    const instancesDir = join(workspaces, swarmDir, "instances");
    for (const agentDir of subdirectories(instancesDir)) {
      for (const keyDir of subdirectories(join(instancesDir, agentDir))) {
        const dir = join(instancesDir, agentDir, keyDir);
        found.push({
          swarmInstanceKey: nameOfDir(swarmDir),
          agent: nameOfDir(agentDir),
          instanceKey: instanceKeyOfDir(dir),
          dir,
          runtimeEvents: join(dir, "runtime-events.jsonl"),
          messages: countLines(join(dir, "base.jsonl")),
          updatedAt: lastChange(dir),
        });
      }
    }
  }
  return found;
}
