/**
 * Per-agent resource limits of a process (Agent `spec.limits`, docs/limits.md#resource-limits), behind one call made
 * where the process is spawned: `applyLimits(pid, limits)`. Where the daemon can write a cgroup v2 (cgroup-v2.ts)
 * the kernel holds memory, CPU share and processes; elsewhere open files are set as an rlimit (`prlimit`), the CPU
 * share becomes a lower scheduling priority, and a watchdog reads the process tree's memory and process count
 * from /proc every `intervalMs` and kills the tree once it is over. `releaseLimits(pid)` when the process has
 * ended says whether a limit ended it (the turn in flight is then answered with that code, not redelivered).
 */
import { setPriority } from "node:os";
import type { AgentLimits } from "../config/types.ts";
import type { ErrorInfo } from "../protocol/error-info.ts";
import { cgroupParent, joinCgroup, oomKills, removeCgroup, CGROUP_ROOT } from "./cgroup-v2.ts";
import { processTree, treeUsage } from "./process-tree.ts";

export type ProcessLimits = Pick<AgentLimits, "memoryMb" | "cpu" | "maxProcesses" | "openFiles">;

export type LimitMechanism = "cgroup-v2" | "rlimit";

export interface LimitSupport {
  mechanism: LimitMechanism;
  /** Why cgroup v2 is not used, or where its groups go. */
  detail: string;
}

export interface ApplyLimitsOptions {
  /** Names the cgroup (`<name>-<pid>`). Default `agent`. */
  name?: string;
  /** Default /sys/fs/cgroup. */
  cgroupRoot?: string;
  /** How often the watchdog looks when there is no cgroup. Default 250 ms. */
  intervalMs?: number;
}

interface Applied {
  mechanism: LimitMechanism;
  group?: string;
  timer?: ReturnType<typeof setInterval>;
  exceeded?: ErrorInfo;
}

const applied = new Map<number, Applied>();

/** What would hold an agent's limits on this machine (`goondan doctor` says it). */
export function limitSupport(root = CGROUP_ROOT): LimitSupport {
  const parent = cgroupParent(root);
  return "path" in parent
    ? { mechanism: "cgroup-v2", detail: `cgroup v2 groups under ${parent.path}` }
    : { mechanism: "rlimit", detail: parent.reason };
}

export const hasProcessLimits = (limits: ProcessLimits | undefined): limits is ProcessLimits =>
  limits !== undefined &&
  (limits.memoryMb !== undefined ||
    limits.cpu !== undefined ||
    limits.maxProcesses !== undefined ||
    limits.openFiles !== undefined);

/** Puts `pid` under `limits`; never throws (a limit that cannot be applied is said in the answer). */
export function applyLimits(
  pid: number,
  limits: ProcessLimits,
  options: ApplyLimitsOptions = {},
): { mechanism: LimitMechanism; problems: string[] } {
  // A shared agent process is limited once, when its first instance starts in it; later instances find it so.
  const known = applied.get(pid);
  if (known !== undefined) return { mechanism: known.mechanism, problems: [] };
  const problems: string[] = [];
  const memoryBytes = limits.memoryMb === undefined ? undefined : limits.memoryMb * 1024 * 1024;
  const parent = cgroupParent(options.cgroupRoot ?? CGROUP_ROOT);
  const entry: Applied = { mechanism: "path" in parent ? "cgroup-v2" : "rlimit" };
  applied.set(pid, entry);
  if ("path" in parent) {
    try {
      entry.group = joinCgroup({
        parent: parent.path,
        name: `${options.name ?? "agent"}-${pid}`,
        pid,
        limits: {
          ...(memoryBytes === undefined ? {} : { memoryBytes }),
          ...(limits.cpu === undefined ? {} : { cpu: limits.cpu }),
          ...(limits.maxProcesses === undefined ? {} : { maxProcesses: limits.maxProcesses }),
        },
      });
    } catch (error) {
      problems.push(`cgroup: ${(error as Error).message}`);
    }
  } else {
    if (limits.cpu !== undefined) {
      try {
        // The whole tree: a sandbox launcher may have started its process already.
        for (const member of processTree(pid)) setPriority(member, niceFor(limits.cpu));
      } catch (error) {
        problems.push(`priority: ${(error as Error).message}`);
      }
    }
    if (memoryBytes !== undefined || limits.maxProcesses !== undefined)
      entry.timer = watch({
        pid,
        entry,
        memoryBytes,
        maxProcesses: limits.maxProcesses,
        intervalMs: options.intervalMs,
      });
  }
  if (limits.openFiles !== undefined) {
    for (const member of processTree(pid).slice(0, 2)) {
      const nofile = `--nofile=${limits.openFiles}:${limits.openFiles}`;
      const result = Bun.spawnSync(["prlimit", "--pid", String(member), nofile]);
      if (result.exitCode !== 0)
        problems.push(`prlimit: ${result.stderr.toString().trim() || `exit ${result.exitCode}`}`);
    }
  }
  return { mechanism: entry.mechanism, problems };
}

/** Limits that ended a process, kept a minute for every instance that process held (each asks once). */
const endedBy = new Map<number, ErrorInfo>();

/**
 * A child of the process ended: when the process itself ended, stops watching it, removes its cgroup, and says which
 * limit ended it, if one did (to every instance it held). One instance leaving a shared process that still runs
 * changes nothing.
 */
export function releaseLimits(pid: number): ErrorInfo | undefined {
  const entry = applied.get(pid);
  if (entry === undefined) return endedBy.get(pid);
  if (processRuns(pid)) return entry.exceeded;
  applied.delete(pid);
  if (entry.timer !== undefined) clearInterval(entry.timer);
  if (entry.group !== undefined) {
    if (entry.exceeded === undefined && oomKills(entry.group) > 0)
      entry.exceeded = { code: "E_LIMIT_MEMORY", message: "the agent's processes went over spec.limits.memoryMb" };
    removeCgroup(entry.group);
  }
  if (entry.exceeded !== undefined) {
    endedBy.set(pid, entry.exceeded);
    setTimeout(() => endedBy.delete(pid), 60_000).unref();
  }
  return entry.exceeded;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A CPU share below one core as a nice value: 1+ cores 0, half 5, a quarter 10, less 15. */
const niceFor = (cpu: number): number => (cpu >= 1 ? 0 : cpu >= 0.5 ? 5 : cpu >= 0.25 ? 10 : 15);

function watch(options: {
  pid: number;
  entry: Applied;
  memoryBytes: number | undefined;
  maxProcesses: number | undefined;
  intervalMs: number | undefined;
}): ReturnType<typeof setInterval> {
  const timer = setInterval(() => {
    const tree = processTree(options.pid);
    const usage = treeUsage(tree);
    if (usage.processes === 0) return clearInterval(timer);
    const over =
      options.memoryBytes !== undefined && usage.rssBytes > options.memoryBytes
        ? {
            code: "E_LIMIT_MEMORY",
            message: `the agent's processes used ${Math.round(usage.rssBytes / 1048576)} MiB, over spec.limits.memoryMb (${Math.round(options.memoryBytes / 1048576)})`,
          }
        : options.maxProcesses !== undefined && usage.processes > options.maxProcesses
          ? {
              code: "E_LIMIT_PROCESSES",
              message: `the agent ran ${usage.processes} processes, over spec.limits.maxProcesses (${options.maxProcesses})`,
            }
          : undefined;
    if (over === undefined) return;
    options.entry.exceeded = over;
    clearInterval(timer);
    for (const pid of tree) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
  }, options.intervalMs ?? 250);
  timer.unref?.();
  return timer;
}
