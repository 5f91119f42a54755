/**
 * CPU time (user + system) used so far by a set of processes, from /proc (Linux): for benches that compare the CPU a
 * piece of work costs across several processes, a figure that a loaded machine distorts far less than wall time.
 * Returns undefined where /proc is not there.
 */
import { existsSync, readFileSync } from "node:fs";

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
