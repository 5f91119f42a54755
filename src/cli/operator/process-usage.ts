/**
 * What `goondan ps` adds to a process row from this machine's /proc: its CPU share over its life (user + system
 * time / time since it started, as `ps -o %cpu` counts it) and its resident memory. Only for processes of this
 * host (a cluster's other nodes answer for their own); undefined when /proc has no such process or is absent.
 */
import { readFileSync } from "node:fs";
import { sandboxedProcess } from "../../supervision/process-usage.ts";

/** Clock ticks per second of /proc's times; 100 on every Linux goondan runs on. */
const TICKS_PER_SECOND = 100;

export interface ProcessUsage {
  /** Percent of one core, averaged over the process's life. */
  cpuPercent: number;
  /** Resident set size in bytes. */
  rssBytes: number;
}

export function processUsage(launched: number): ProcessUsage | undefined {
  // A sandboxed agent's row names its launcher: count the process in the sandbox.
  const pid = sandboxedProcess(launched);
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Counted from the state (field 3): utime 14, stime 15, starttime 22.
    const cpuTicks = Number(fields[11]) + Number(fields[12]);
    const startTicks = Number(fields[19]);
    const uptimeSeconds = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
    const lifeSeconds = uptimeSeconds - startTicks / TICKS_PER_SECOND;
    const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
    if (!Number.isFinite(cpuTicks) || !Number.isFinite(lifeSeconds) || !Number.isFinite(rssKb)) return undefined;
    return {
      cpuPercent: lifeSeconds > 0 ? (100 * cpuTicks) / TICKS_PER_SECOND / lifeSeconds : 0,
      rssBytes: rssKb * 1024,
    };
  } catch {
    return undefined;
  }
}

/** `45s`, `12m`, `3h`, `2d`: how long ago `startedAt` was. */
export function formatAge(startedAt: string, now: number): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(startedAt)) / 1000));
  if (!Number.isFinite(seconds)) return "-";
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
