/**
 * The one child of a process, read from Linux's `/proc/<pid>/task/<pid>/children`: a sandbox launcher's (`unshare`)
 * child is the process in its sandbox. Undefined where it cannot say (no such file, none or several children).
 */
import { readFileSync } from "node:fs";

export function onlyChild(pid: number): number | undefined {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    return children.length === 1 ? Number(children[0]) : undefined;
  } catch {
    return undefined;
  }
}
