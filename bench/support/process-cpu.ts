/**
 * CPU time (user + system) used so far by a set of processes, from /proc (Linux): for benches that compare the CPU a
 * piece of work costs across several processes, a figure that a loaded machine distorts far less than wall time.
 * Returns undefined where /proc is not there.
 */
import { existsSync, readFileSync } from "node:fs";
import { processTree } from "./process-tree.ts";

const TICKS_PER_SECOND = 100;

/** Milliseconds of CPU the process has used, or 0 once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The CPU milliseconds of `pids()` (looked up at each reading) between `start` and `stop`, or undefined without /proc. */
export function cpuMeter(pids: () => number[]): { start(): void; stop(): number | undefined } {
  let before = new Map<number, number>();
  return {
    start: () => {
      before = new Map(pids().map((pid) => [pid, processCpuMs(pid)]));
    },
    stop: () => {
      if (!existsSync("/proc/self/stat")) return undefined;
      // A process that ended meanwhile took its figure with it: it counts nothing rather than less than nothing.
      return pids().reduce((sum, pid) => sum + Math.max(0, processCpuMs(pid) - (before.get(pid) ?? 0)), 0);
    },
  };
}

/** CPU ms of a process so far, its own (utime + stime) plus what it reaped of its ended children (cutime + cstime). */
function ownAndReapedMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (
      ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND
    );
  } catch {
    return 0;
  }
}

/**
 * CPU milliseconds used so far by `root` and all its descendants, living or ended: each live process's own time
 * plus what it has reaped of its ended children. A child that ends and is reaped moves its time from the live sum
 * into its parent's reaped time, so the figure does not drop when children come and go (as goondan's agent
 * children do with short conversations). 0 without /proc.
 */
export function processTreeCpuMs(root: number): number {
  return processTree(root).reduce((sum, pid) => sum + ownAndReapedMs(pid), 0);
}

/** `processTreeCpuMs(root)` between `start` and `stop`, or undefined without /proc. */
export function treeCpuMeter(root: number): { start(): void; stop(): number | undefined } {
  let before = 0;
  return {
    start: () => {
      before = processTreeCpuMs(root);
    },
    stop: () => (existsSync("/proc/self/stat") ? processTreeCpuMs(root) - before : undefined),
  };
}
