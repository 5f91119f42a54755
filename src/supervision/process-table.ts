/**
 * The process table (`GET /v1/processes`, `goondan ps`): agent and connector children alike. For agents, one row
 * per instance that has a child (several rows share a pid, and say how many in `processInstances`, when an agent's
 * instances share a process)
 * (spawning, idle, processing, draining) or is restarting one on its own after a crash (crashed,
 * crashLoopBackOff). An instance with queued work still waiting for a free slot under `maxProcesses` has no
 * process yet and no status of its own, so it is not listed here (calling it `terminated` or `spawning`
 * would be untrue); `GET /v1/instances` lists it with its `queued` count and `waitingForSlot: true`.
 */
export interface ProcessInfo {
  kind: "agent" | "connector";
  /** The agent; for a connector `connector:<connection>` (as `goondan ps` shows it). */
  agent: string;
  /** The instance key; for a connector the Connector's name. */
  instanceKey: string;
  /** Connectors: the Connection and the Connector it runs. */
  connection?: string;
  connector?: string;
  pid: number | null;
  status: string;
  restarts: number;
  consecutiveCrashes: number;
  /** ISO time the current child became ready, null when none. */
  startedAt: string | null;
  queued: number;
  /** Agents: how many instances the row's process holds (1 for a process of its own; more when shared). */
  processInstances?: number;
  /** Cluster mode: the node the process runs on. */
  node?: string;
}

export interface ProcessRowSource {
  agent: string;
  instanceKey: string;
  status: string;
  pid: number | undefined;
  live: boolean;
  restarts: number;
  consecutiveCrashes: number;
  startedAt: number | undefined;
  queue: readonly unknown[];
  inFlight: unknown;
}

const RESTARTING = new Set(["crashed", "crashLoopBackOff"]);

export function processTable(sources: readonly ProcessRowSource[]): ProcessInfo[] {
  const listed = sources.filter((source) => source.live || RESTARTING.has(source.status));
  const perPid = new Map<number, number>();
  for (const source of listed)
    if (source.live && source.pid !== undefined) perPid.set(source.pid, (perPid.get(source.pid) ?? 0) + 1);
  return listed
    .map((source) => ({
      kind: "agent" as const,
      agent: source.agent,
      instanceKey: source.instanceKey,
      pid: source.live && source.pid !== undefined ? source.pid : null,
      status: source.status,
      restarts: source.restarts,
      consecutiveCrashes: source.consecutiveCrashes,
      startedAt: source.live && source.startedAt !== undefined ? new Date(source.startedAt).toISOString() : null,
      queued: source.queue.length + (source.inFlight ? 1 : 0),
      ...(source.live && source.pid !== undefined ? { processInstances: perPid.get(source.pid) ?? 1 } : {}),
    }))
    .sort((a, b) => a.agent.localeCompare(b.agent) || a.instanceKey.localeCompare(b.instanceKey));
}

/** A supervised connector child, as connector-link.ts reports it. */
export interface ConnectorRowSource {
  connection: string;
  connector: string;
  pid: number | undefined;
  status: string;
  restarts: number;
  consecutiveCrashes: number;
  startedAt: string | undefined;
}

export function connectorRows(sources: readonly ConnectorRowSource[]): ProcessInfo[] {
  return sources.map((source) => ({
    kind: "connector" as const,
    agent: `connector:${source.connection}`,
    instanceKey: source.connector,
    connection: source.connection,
    connector: source.connector,
    pid: source.pid ?? null,
    status: source.status,
    restarts: source.restarts,
    consecutiveCrashes: source.consecutiveCrashes,
    startedAt: source.startedAt ?? null,
    queued: 0,
  }));
}
