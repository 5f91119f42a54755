/**
 * Whether a bash tool command runs in the agent process's PID namespace sandbox (src/tools/pid-namespace-
 * sandbox.ts), by the Tool's `config.isolation`:
 *   - `auto` (default): in the sandbox where the machine allows it; else directly, with one warning per
 *     agent process saying what a command can then reach;
 *   - `required`: in the sandbox, or not at all (E_BASH_ISOLATION_UNAVAILABLE);
 *   - `none`: directly, seeing every process of the machine (for agents that must watch host processes).
 */
import { configString } from "../../tools/tool-config.ts";
import { PidNamespaceSandbox } from "../../tools/pid-namespace-sandbox.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import type { ToolContext } from "../../tools/types.ts";

export type IsolationSetting = "auto" | "required" | "none";

/** One sandbox per agent process: commands of all its bash tools share it, and it ends with the process. */
export const commandSandbox = new PidNamespaceSandbox();
let warned = false;

/** Forgets that the warning was given (tests). */
export function resetIsolationWarning(): void {
  warned = false;
}

export function isolationSetting(config: ToolContext["config"]): IsolationSetting {
  const value = configString(config, "isolation");
  return value === "required" || value === "none" ? value : "auto";
}

export interface Command {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

/** The command to spawn (as its own process group) for `command`, wrapped into the sandbox when the setting asks. */
export async function isolateCommand(options: {
  ctx: ToolContext;
  command: Command;
  sandbox?: PidNamespaceSandbox;
}): Promise<Command> {
  const { ctx, command } = options;
  const setting = isolationSetting(ctx.config);
  if (setting === "none") return command;
  const entry = await (options.sandbox ?? commandSandbox).enter(command);
  if (entry.isolated) return { argv: entry.argv, cwd: "/", env: entry.env };
  if (setting === "required") {
    throw new ToolFault(
      "E_BASH_ISOLATION_UNAVAILABLE",
      `this Tool requires commands to run in their own PID namespace, which this machine does not allow: ${entry.reason}`,
      {
        suggestion: "Tell the operator: run goondan doctor, or set the bash Tool's config.isolation to auto.",
      },
    );
  }
  if (!warned) {
    warned = true;
    ctx.logger.warn(
      { reason: entry.reason },
      "bash commands run WITHOUT their own PID namespace: a command can list every process and read the environment of any process of this user that is not protected, such as the node launcher of `npx goondan run` and npx itself, which hold the model API keys and GOONDAN_API_TOKEN; `goondan doctor` shows why",
    );
  }
  return command;
}
