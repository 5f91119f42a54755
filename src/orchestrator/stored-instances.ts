/**
 * The instances a swarm has on disk (a directory under `workspaces/<swarm>/instances/<agent>/<key>`), for
 * `GET /v1/instances`: names are decoded back from their file-system-safe form (`%XX`).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { safeName } from "../shared/state-paths.ts";

const decode = (name: string): string => {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
};

export function storedInstances(options: { stateRoot: string; swarmInstanceKey: string }): { agent: string; instanceKey: string }[] {
  const instancesDir = join(options.stateRoot, "workspaces", safeName(options.swarmInstanceKey), "instances");
  const directories = (dir: string): string[] => {
    try {
      return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    } catch {
      return [];
    }
  };
  return directories(instancesDir).flatMap((agent) => directories(join(instancesDir, agent)).map((key) => ({ agent: decode(agent), instanceKey: decode(key) })));
}
