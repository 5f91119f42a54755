/**
 * A process and all its living descendants, from /proc (Linux): what a bench counts as "goondan" (`goondan run`
 * and every agent child it spawned), found by parent pid rather than by command line. Empty without /proc.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The parent pid of every process now visible in /proc. */
function parentPids(): Map<number, number> {
  const parents = new Map<number, number>();
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return parents;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // it exited while we looked
    }
  }
  return parents;
}

/** `root` and its living descendants (root first when alive). */
export function processTree(root: number): number[] {
  const parents = parentPids();
  const inTree = (pid: number): boolean => {
    for (let at = pid, hops = 0; at > 1 && hops < 64; at = parents.get(at) ?? 0, hops += 1)
      if (at === root) return true;
    return false;
  };
  return [...parents.keys()].filter(inTree).sort((a, b) => (a === root ? -1 : b === root ? 1 : a - b));
}

/** The living processes whose parent is `pid`, lowest pid first. */
export function childPids(pid: number): number[] {
  return [...parentPids()]
    .filter(([, parent]) => parent === pid)
    .map(([child]) => child)
    .sort((a, b) => a - b);
}

/** Resident set size of one process in KiB (VmRSS), 0 once it is gone. */
export function rssKb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
