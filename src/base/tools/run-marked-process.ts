/**
 * One bash-tool run with a run marker: the command's environment gets `GOONDAN_TOOL_RUN=<random id>` (last,
 * so no caller-given env can change it; `wrap` may then enter the command into a PID namespace),
 * which every descendant inherits, including those that leave the process group (setsid, nohup, double
 * forks). When the run is stopped by force (timeout, cancellation, output flood), right after the group is
 * killed, every other process still carrying the marker is killed too. A normal exit kills nobody outside
 * the group: background jobs the command deliberately detached keep running.
 */
import { randomBytes } from "node:crypto";
import { killMarkedProcesses } from "./kill-marked-processes.ts";
import { runProcess, type ProcessOutcome, type RunProcessOptions } from "./process-runner.ts";
import { scrubbedEnv } from "./scrubbed-env.ts";

export const RUN_MARKER_NAME = "GOONDAN_TOOL_RUN";

export interface MarkedOutcome extends ProcessOutcome {
  /** Processes outside the process group (escaped with setsid and the like) killed with the run. */
  escapedKilled: number;
}

export interface MarkedProcessOptions extends RunProcessOptions {
  runId?: string;
  /**
   * Turns the marked command (its argv, cwd and full environment, marker included) into what is spawned,
   * e.g. the same command entered into a PID namespace (command-isolation.ts). Default: spawned as is.
   */
  wrap?: (command: {
    argv: string[];
    cwd: string;
    env: Record<string, string>;
  }) => Promise<{ argv: string[]; cwd: string; env: Record<string, string> }>;
}

export async function runMarkedProcess(options: MarkedProcessOptions): Promise<MarkedOutcome> {
  const { runId = randomBytes(12).toString("hex"), wrap, ...rest } = options;
  // The marker comes last: a caller's env can never remove or forge it.
  const marked = {
    argv: rest.argv,
    cwd: rest.cwd,
    env: { ...(rest.env ?? scrubbedEnv(process.env)), [RUN_MARKER_NAME]: runId },
  };
  const spawned = wrap === undefined ? marked : await wrap(marked);
  let sweep: Promise<number> | undefined;
  const outcome = await runProcess({
    ...rest,
    ...spawned,
    onForcedKill: (processGroup) => {
      rest.onForcedKill?.(processGroup);
      sweep ??= killMarkedProcesses({ marker: `${RUN_MARKER_NAME}=${runId}`, exceptProcessGroup: processGroup }).catch(
        () => 0,
      );
    },
  });
  return { ...outcome, escapedKilled: await (sweep ?? Promise.resolve(0)) };
}
