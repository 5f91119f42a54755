/**
 * Linux's `/proc/<pid>/stat` line read into the fields goondan looks at: "pid (comm) state ppid pgrp session tty
 * tpgid flags …", where comm may hold spaces and parentheses, so the fields are counted from the last ')'.
 */

export interface ProcStat {
  /** R, S, D, Z (a zombie: exited, not yet reaped), X (dead), … */
  state: string;
  ppid: number;
  processGroup: number;
  session: number;
  /** The kernel's task flags (PF_EXITING = 0x4: on its way out). */
  flags: number;
}

/** The fields of one stat line; undefined when it is not one. */
export function parseProcStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(")");
  if (close === -1) return undefined;
  const fields = text.slice(close + 2).split(" ");
  const [state, ppid, processGroup, session, flags] = [
    fields[0],
    Number(fields[1]),
    Number(fields[2]),
    Number(fields[3]),
    Number(fields[6]),
  ];
  if (state === undefined || state === "" || !Number.isInteger(processGroup)) return undefined;
  return { state, ppid, processGroup, session, flags };
}

/** A task that runs nothing any more: a zombie, or dead. */
export function procStatEnded(stat: ProcStat): boolean {
  return stat.state === "Z" || stat.state === "X";
}
