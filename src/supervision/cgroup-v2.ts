/**
 * A cgroup v2 of its own for an agent process, where the daemon can write one (docs/limits.md#resource-limits):
 * `<root>/goondan/<name>` under a unified hierarchy whose root offers the memory, cpu and pids controllers. The
 * process is moved in right after it starts; what it starts later is born inside. `memory.oom.group` makes the
 * kernel's OOM killer end the whole group at once, and `memory.events` then says it did.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { processTree } from "./process-tree.ts";
import { join } from "node:path";

export const CGROUP_ROOT = "/sys/fs/cgroup";
const NEEDED = ["memory", "cpu", "pids"];

/** The parent cgroup goondan's groups go under, or why there is none (hybrid or v1 hierarchy, not writable). */
export function cgroupParent(root = CGROUP_ROOT): { path: string } | { reason: string } {
  const controllers = join(root, "cgroup.controllers");
  if (!existsSync(controllers)) return { reason: `${root} is not a cgroup v2 (unified) hierarchy` };
  try {
    const offered = readFileSync(controllers, "utf8").trim().split(/\s+/);
    const missing = NEEDED.filter((name) => !offered.includes(name));
    if (missing.length > 0) return { reason: `${root} does not offer the ${missing.join(", ")} controller(s)` };
    const parent = join(root, "goondan");
    mkdirSync(parent, { recursive: true });
    // Controllers must be enabled on every level down to the groups; the root's may already be.
    for (const level of [root, parent]) {
      const enabled = readFileSync(join(level, "cgroup.subtree_control"), "utf8");
      const absent = NEEDED.filter((name) => !enabled.split(/\s+/).includes(name));
      if (absent.length > 0)
        writeFileSync(join(level, "cgroup.subtree_control"), absent.map((name) => `+${name}`).join(" "));
    }
    return { path: parent };
  } catch (error) {
    return { reason: `cannot write a cgroup under ${root}: ${(error as Error).message}` };
  }
}

export interface CgroupLimits {
  memoryBytes?: number;
  /** Cores (1 = one whole core). */
  cpu?: number;
  maxProcesses?: number;
}

/**
 * Makes the group, writes its limits and moves `pid` into it, then what `pid` started before (a sandbox launcher's
 * process, forked before the move; processes forked after it are born in the group); returns the group's path.
 */
export function joinCgroup(options: { parent: string; name: string; pid: number; limits: CgroupLimits }): string {
  const group = join(options.parent, options.name);
  mkdirSync(group, { recursive: true });
  const { memoryBytes, cpu, maxProcesses } = options.limits;
  if (memoryBytes !== undefined) {
    writeFileSync(join(group, "memory.max"), String(memoryBytes));
    if (existsSync(join(group, "memory.swap.max"))) writeFileSync(join(group, "memory.swap.max"), "0");
    writeFileSync(join(group, "memory.oom.group"), "1");
  }
  if (cpu !== undefined) writeFileSync(join(group, "cpu.max"), `${Math.max(1000, Math.round(cpu * 100_000))} 100000`);
  if (maxProcesses !== undefined) writeFileSync(join(group, "pids.max"), String(maxProcesses));
  appendFileSync(join(group, "cgroup.procs"), String(options.pid));
  for (const started of processTree(options.pid).slice(1)) {
    try {
      appendFileSync(join(group, "cgroup.procs"), String(started));
    } catch {
      // gone meanwhile
    }
  }
  return group;
}

/** How many times the kernel's OOM killer struck in the group (0 when unknown). */
export function oomKills(group: string): number {
  try {
    const match = /^oom_kill (\d+)$/m.exec(readFileSync(join(group, "memory.events"), "utf8"));
    return match === null ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

/** Removes an emptied group (it fails quietly while a process is left in it). */
export function removeCgroup(group: string): void {
  try {
    rmdirSync(group);
  } catch {
    // still in use, or gone already
  }
}
