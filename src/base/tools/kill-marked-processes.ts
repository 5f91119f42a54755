/**
 * Kills every process that carries one exact environment entry (a run marker such as
 * `GOONDAN_TOOL_RUN=<id>`), found by reading /proc directly (no procps, no cgroups). This is how the bash
 * tool reaches descendants that left its process group with setsid, nohup or a double fork: they keep the
 * environment they inherited. Only processes of our own uid are considered, never our own pid, never
 * zombies, and never members of `exceptProcessGroup` (already killed as a group, so not counted twice).
 * Unreadable entries (other users, non-dumpable processes, processes that vanish mid-read) are skipped.
 * It sweeps in passes until a pass finds nobody new (bounded), to catch children forked during the kill.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { SystemError } from "../../shared/errors.ts";
import { parseProcStat, procStatEnded } from "../../shared/proc-stat.ts";

export interface KillMarkedProcessesOptions {
  /** The exact environment entry to look for, "NAME=value". */
  marker: string;
  /** Members of this process group are left out (the caller already killed the group). */
  exceptProcessGroup?: number;
  /** At most this many passes (default 5); stops earlier after a pass that finds nobody new. */
  maxPasses?: number;
  /** Pause between passes (default 20 ms). */
  passPauseMs?: number;
  /** Default "/proc". */
  procRoot?: string;
  /** Default process.pid: never killed. */
  selfPid?: number;
  /** Default process.getuid(): processes of other users are left alone. */
  uid?: number;
  /** Default: SIGKILL via process.kill. */
  kill?: (pid: number) => void;
}

/** How many distinct processes were sent SIGKILL. */
export async function killMarkedProcesses(options: KillMarkedProcessesOptions): Promise<number> {
  const procRoot = options.procRoot ?? "/proc";
  if (!options.marker.includes("="))
    throw new SystemError("E_MARKER_INVALID", `marker ${JSON.stringify(options.marker)} is not a NAME=value entry`);
  const maxPasses = Math.max(1, options.maxPasses ?? 5);
  const kill = options.kill ?? ((pid: number) => process.kill(pid, "SIGKILL"));
  const needle = Buffer.from(options.marker);
  const killed = new Set<number>();
  for (let pass = 0; pass < maxPasses; pass++) {
    if (pass > 0) await Bun.sleep(options.passPauseMs ?? 20);
    const found = await findMarked({ ...options, procRoot, needle });
    let fresh = 0;
    for (const pid of found) {
      try {
        kill(pid);
      } catch {
        continue; // gone already
      }
      if (!killed.has(pid)) {
        killed.add(pid);
        fresh++;
      }
    }
    if (fresh === 0) break;
  }
  return killed.size;
}

async function findMarked(
  options: KillMarkedProcessesOptions & { procRoot: string; needle: Buffer },
): Promise<number[]> {
  const selfPid = options.selfPid ?? process.pid;
  const uid = options.uid ?? process.getuid?.();
  let names: string[];
  try {
    names = await readdir(options.procRoot);
  } catch {
    return [];
  }
  const pids = names
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== selfPid);
  const checks = await Promise.all(pids.map((pid) => isMarked({ ...options, pid, uid })));
  return pids.filter((_, index) => checks[index]);
}

async function isMarked(options: {
  procRoot: string;
  needle: Buffer;
  pid: number;
  uid: number | undefined;
  exceptProcessGroup?: number;
}): Promise<boolean> {
  const dir = `${options.procRoot}/${options.pid}`;
  try {
    if (options.uid !== undefined && (await stat(dir)).uid !== options.uid) return false;
    const status = parseProcStat(await readFile(`${dir}/stat`, "utf8"));
    if (status === undefined || procStatEnded(status)) return false;
    if (options.exceptProcessGroup !== undefined && status.processGroup === options.exceptProcessGroup) return false;
    return hasEntry(await readFile(`${dir}/environ`), options.needle);
  } catch {
    return false; // another user's, non-dumpable, or gone
  }
}

/** True when the NUL-separated environ block holds exactly `needle` as one entry. */
function hasEntry(environ: Buffer, needle: Buffer): boolean {
  let start = 0;
  while (start < environ.length) {
    let end = environ.indexOf(0, start);
    if (end === -1) end = environ.length;
    if (end - start === needle.length && environ.compare(needle, 0, needle.length, start, end) === 0) return true;
    start = end + 1;
  }
  return false;
}
