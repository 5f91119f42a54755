/**
 * The state root as operator commands see it without a running orchestrator: its store (`goondan.db`), opened only
 * when it is there (an operator command never creates one), and the instances it holds with the directory each
 * keeps its workspace in (SPEC §5).
 */
import { existsSync } from "node:fs";
import { instancePaths } from "../../shared/state-paths.ts";
import { stateDatabasePath } from "../../store/open-state-store.ts";
import { SqliteStore } from "../../store/sqlite/index.ts";

export interface InstanceInStore {
  swarmInstanceKey: string;
  agent: string;
  instanceKey: string;
  /** Its directory under the state root (its workspace). */
  dir: string;
  messages: number;
  /** ISO time of its last change. */
  updatedAt: string;
}

/** The state root's store, or undefined when it has none yet. Close it when done. */
export function openStateRootStore(stateRoot: string): SqliteStore | undefined {
  const file = stateDatabasePath(stateRoot);
  return existsSync(file) ? new SqliteStore(file, { existing: true }) : undefined;
}

export async function listStoredInstances(options: {
  stateRoot: string;
  store: SqliteStore | undefined;
}): Promise<InstanceInStore[]> {
  return ((await options.store?.instances()) ?? []).map((row) => ({
    swarmInstanceKey: row.swarm,
    agent: row.agent,
    instanceKey: row.instanceKey,
    dir: instancePaths({
      stateRoot: options.stateRoot,
      swarmInstanceKey: row.swarm,
      agent: row.agent,
      instanceKey: row.instanceKey,
    }).root,
    messages: row.messages,
    updatedAt: new Date(row.updatedAt).toISOString(),
  }));
}
