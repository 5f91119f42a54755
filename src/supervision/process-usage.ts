/**
 * What a running child costs, read from Linux's /proc: the CPU time it used so far (user + system, seconds) and its
 * resident memory (bytes). Undefined elsewhere, or when the process is gone. The process table's readers (the studio,
 * `GET /v1/processes`) show it next to each pid.
 */
import { readFileSync } from "node:fs";
import { onlyChild } from "../shared/only-child.ts";

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on every Linux goondan runs on). */
const TICKS_PER_SECOND = 100;
const PAGE_BYTES = 4096;

export interface ProcessUsage {
  cpuSeconds: number;
  rssBytes: number;
}

/** What the process costs; for a sandbox launcher, what the process in its sandbox costs (sandboxedProcess). */
export function processUsage(launched: number): ProcessUsage | undefined {
  return ownUsage(sandboxedProcess(launched));
}

/** What this very process costs. */
export function ownUsage(pid: number): ProcessUsage | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces: the fields after it start past its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    const rssPages = Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]);
    if (!Number.isFinite(ticks) || !Number.isFinite(rssPages)) return undefined;
    return { cpuSeconds: ticks / TICKS_PER_SECOND, rssBytes: rssPages * PAGE_BYTES };
  } catch {
    return undefined;
  }
}

/**
 * The process a sandbox launcher (`unshare`, src/tools/sandbox-launcher.ts) runs, when `pid` is one: what an agent or
 * connector process costs is that of the process in its sandbox; else `pid` itself.
 */
export function sandboxedProcess(pid: number): number {
  try {
    if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "unshare") return pid;
    return onlyChild(pid) ?? pid;
  } catch {
    return pid;
  }
}
