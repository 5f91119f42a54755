/**
 * The spawner for children that share processes: a request with `share` becomes a lane in a host process of its
 * group (process-host.ts), other requests are passed to the inner spawner as they are. Placement: an empty host
 * first, else a new host while the group has fewer than `maxProcesses`, else the least loaded; a child stays in its
 * host for its life (sticky) and is placed afresh when its supervisor starts it again (after a crash, on another host
 * or a new one). A new group for a label (a reload changed the agent's bundle or environment) retires the label's
 * older hosts: they take no new children and exit once empty. The per-host cap on children is the process pool's
 * business (a group's slots are `maxProcesses` times the per-host cap, so the least loaded host always has room).
 */
import { systemClock, type Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import { ProcessHost } from "./process-host.ts";
import { bunProcessSpawner, type BunSpawnerOptions } from "./process-spawner.ts";
import type { ChildProcessHandle, ProcessSpawner, SpawnRequest } from "./process-spawner.ts";

export interface SharedSpawnerOptions {
  /** Spawns the host processes and the children that run alone. */
  spawner: ProcessSpawner;
  clock: Clock;
  logger: Logger;
  /** Default 5000. */
  killGraceMs?: number;
}

/** A host process and the addresses of the children it holds (what tests look at). */
export interface HostInfo {
  pid: number;
  label: string;
  children: string[];
}

export interface SharedSpawner extends ProcessSpawner {
  hosts(): HostInfo[];
  stopIdle(): void;
}

export function sharedProcessSpawner(options: SharedSpawnerOptions): SharedSpawner {
  const groups = new Map<string, ProcessHost[]>();
  const labels = new Map<string, string>();
  let spawned = 0;

  const newHost = (request: SpawnRequest & { share: NonNullable<SpawnRequest["share"]> }): ProcessHost => {
    const { group, label, hostArgv } = request.share;
    spawned += 1;
    const handle = options.spawner.spawn({
      address: `${label}#host-${spawned}`,
      argv: hostArgv,
      ...(request.env === undefined ? {} : { env: request.env }),
      ...(request.sandbox === undefined ? {} : { sandbox: request.sandbox }),
    });
    const host = new ProcessHost(handle, {
      group,
      label,
      clock: options.clock,
      logger: options.logger,
      idleMs: request.share.idleMs,
      killGraceMs: options.killGraceMs ?? 5000,
      gone: (gone) => {
        const rest = (groups.get(group) ?? []).filter((candidate) => candidate !== gone);
        if (rest.length === 0) groups.delete(group);
        else groups.set(group, rest);
      },
    });
    groups.set(group, [...(groups.get(group) ?? []), host]);
    options.logger.info({ pid: handle.pid, agent: label }, "shared agent process spawned");
    return host;
  };

  const retireOlder = (label: string, group: string): void => {
    const before = labels.get(label);
    labels.set(label, group);
    if (before === undefined || before === group) return;
    for (const host of groups.get(before) ?? []) host.retire();
  };

  const choose = (request: SpawnRequest & { share: NonNullable<SpawnRequest["share"]> }): ProcessHost => {
    const hosts = (groups.get(request.share.group) ?? []).filter((host) => host.open);
    const empty = hosts.find((host) => host.lanes.size === 0);
    if (empty !== undefined) return empty;
    if (hosts.length < Math.max(1, request.share.maxProcesses)) return newHost(request);
    return hosts.reduce((least, host) => (host.lanes.size < least.lanes.size ? host : least));
  };

  return {
    spawn(request): ChildProcessHandle {
      const share = request.share;
      if (share === undefined) return options.spawner.spawn(request);
      const shared = { ...request, share };
      retireOlder(share.label, share.group);
      const lane = choose(shared).place(request) ?? newHost(shared).place(request);
      if (lane === undefined) throw new Error(`could not open ${request.address} in a new shared process`);
      return lane;
    },
    hosts: () =>
      [...groups.values()].flat().map((host) => ({
        pid: host.pid,
        label: host.label,
        children: [...host.lanes.keys()],
      })),
    stopIdle: () => {
      for (const host of [...groups.values()].flat()) if (host.lanes.size === 0) host.retire();
    },
  };
}

/** The agent spawner `goondan run` uses: Bun processes, shared where a request says so. */
export function sharedBunSpawner(options: BunSpawnerOptions & { logger: Logger }): SharedSpawner {
  const { logger, ...bun } = options;
  return sharedProcessSpawner({ spawner: bunProcessSpawner(bun), clock: systemClock, logger });
}
