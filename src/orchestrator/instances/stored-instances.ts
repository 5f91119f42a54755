/**
 * The instance table of `GET /v1/instances`: supervised instances plus the ones the swarm only has state for in the
 * store (terminated, nothing queued), each with what the store keeps for it when it keeps anything.
 */
import type { StoredInstance } from "../../store/store.ts";

export interface InstanceRow {
  agent: string;
  instanceKey: string;
  status: string;
  pid?: number;
  queued: number;
  /** Present while its queued work waits for a free process slot (`maxProcesses` reached). */
  waitingForSlot?: true;
  /** Committed messages of its conversation (absent when the store has nothing for it yet). */
  messages?: number;
  /** Results its model has not been shown yet. */
  pendingResults?: number;
  /** Epoch ms of the last change the store has for it. */
  updatedAt?: number;
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

export function instanceRows(options: {
  supervisors: readonly SupervisedInstance[];
  stored: readonly StoredInstance[];
}): InstanceRow[] {
  const stored = new Map(
    options.stored.map((row) => [
      `${row.agent}/${row.instanceKey}`,
      { messages: row.messages, pendingResults: row.pendingResults, updatedAt: row.updatedAt },
    ]),
  );
  const rows: InstanceRow[] = options.supervisors.map((s) => ({
    agent: s.agent,
    instanceKey: s.instanceKey,
    status: s.status,
    ...(s.live && s.pid !== undefined ? { pid: s.pid } : {}),
    queued: s.queue.length + (s.inFlight ? 1 : 0),
    ...(s.awaitingSlot ? { waitingForSlot: true as const } : {}),
    ...stored.get(`${s.agent}/${s.instanceKey}`),
  }));
  const known = new Set(rows.map((row) => `${row.agent}/${row.instanceKey}`));
  for (const row of options.stored) {
    const key = `${row.agent}/${row.instanceKey}`;
    if (!known.has(key))
      rows.push({
        agent: row.agent,
        instanceKey: row.instanceKey,
        status: "terminated",
        queued: 0,
        ...stored.get(key),
      });
  }
  return rows.sort((a, b) => a.agent.localeCompare(b.agent) || a.instanceKey.localeCompare(b.instanceKey));
}
