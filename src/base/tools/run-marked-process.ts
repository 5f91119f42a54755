/**
 * One bash-tool run with a run marker: the command's environment gets `GOONDAN_TOOL_RUN=<random id>`,
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

export async function runMarkedProcess(options: RunProcessOptions & { runId?: string }): Promise<MarkedOutcome> {
  const { runId = randomBytes(12).toString("hex"), ...rest } = options;
  const env = { ...(rest.env ?? scrubbedEnv(process.env)), [RUN_MARKER_NAME]: runId };
  let sweep: Promise<number> | undefined;
  const outcome = await runProcess({
    ...rest,
    env,
    onForcedKill: (processGroup) => {
      rest.onForcedKill?.(processGroup);
      sweep ??= killMarkedProcesses({ marker: `${RUN_MARKER_NAME}=${runId}`, exceptProcessGroup: processGroup }).catch(() => 0);
    },
  });
  return { ...outcome, escapedKilled: await (sweep ?? Promise.resolve(0)) };
}
