/**
 * The instance table of `GET /v1/instances`: supervised instances plus the ones a swarm only has on disk (a
 * directory under `workspaces/<swarm>/instances/<agent>/<key>`, names read back by recorded-names.ts).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { instanceKeyOfDir, nameOfDir } from "../../shared/recorded-names.ts";
import { safeName } from "../../shared/state-paths.ts";

export function storedInstances(options: { stateRoot: string; swarmInstanceKey: string }): { agent: string; instanceKey: string }[] {
  const instancesDir = join(options.stateRoot, "workspaces", safeName(options.swarmInstanceKey), "instances");
  const directories = (dir: string): string[] => {
    try {
      return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    } catch {
      return [];
    }
  };
  return directories(instancesDir).flatMap((agent) => directories(join(instancesDir, agent)).map((key) => ({ agent: nameOfDir(agent), instanceKey: instanceKeyOfDir(join(instancesDir, agent, key)) })));
}

export interface InstanceRow {
  agent: string;
  instanceKey: string;
  status: string;
  pid?: number;
  queued: number;
  /** Present while its queued work waits for a free process slot (`maxProcesses` reached). */
  waitingForSlot?: true;
}

interface SupervisedInstance {
  agent: string;
  instanceKey: string;
  status: string;
  live: boolean;
  pid: number | undefined;
  queue: readonly unknown[];
  inFlight: unknown;
  awaitingSlot: boolean;
}

export function instanceRows(options: { supervisors: readonly SupervisedInstance[]; stored: { agent: string; instanceKey: string }[] }): InstanceRow[] {
  const rows: InstanceRow[] = options.supervisors.map((s) => ({
    agent: s.agent,
    instanceKey: s.instanceKey,
    status: s.status,
    ...(s.live && s.pid !== undefined ? { pid: s.pid } : {}),
    queued: s.queue.length + (s.inFlight ? 1 : 0),
    ...(s.awaitingSlot ? { waitingForSlot: true as const } : {}),
  }));
  const known = new Set(rows.map((row) => `${row.agent}/${row.instanceKey}`));
  for (const stored of options.stored) if (!known.has(`${stored.agent}/${stored.instanceKey}`)) rows.push({ ...stored, status: "terminated", queued: 0 });
  return rows.sort((a, b) => a.agent.localeCompare(b.agent) || a.instanceKey.localeCompare(b.instanceKey));
}
