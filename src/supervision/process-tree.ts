/**
 * A process and everything it started, read from Linux's /proc: their pids and their resident memory together.
 * The resource-limits watchdog (resource-limits.ts) reads it where no cgroup can hold an agent's processes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseProcStat } from "../shared/proc-stat.ts";
import { ownUsage } from "./process-usage.ts";

/** `pid` and its descendants (empty when it is gone or this is not Linux). */
export function processTree(pid: number): number[] {
  if (process.platform !== "linux") return [];
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    const child = Number(name);
    if (!Number.isInteger(child)) continue;
    try {
      const stat = parseProcStat(readFileSync(`/proc/${child}/stat`, "utf8"));
      if (stat === undefined) continue;
      children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), child]);
    } catch {
      // gone meanwhile
    }
  }
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** The resident memory of the processes (bytes), and how many of them are still there. */
export function treeUsage(pids: readonly number[]): { rssBytes: number; processes: number } {
  let rssBytes = 0;
  let processes = 0;
  for (const pid of pids) {
    const usage = ownUsage(pid);
    if (usage === undefined) continue;
    rssBytes += usage.rssBytes;
    processes += 1;
  }
  return { rssBytes, processes };
}
