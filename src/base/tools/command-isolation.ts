/**
 * Whether a bash tool command runs in the agent process's sandbox (src/tools/pid-namespace-sandbox.ts), by the
 * Tool's config:
 *   - `isolation: auto` (default): in the sandbox where the machine allows it; else directly, with one warning
 *     per agent process saying what a command can then reach; `required`: in the sandbox, or not at all
 *     (E_BASH_ISOLATION_UNAVAILABLE); `none`: directly, seeing every process of the machine (for agents that
 *     must watch host processes);
 *   - `network: none` (default): in a network namespace of its own, so no command reaches the daemon's API, NATS
 *     or anything else on 127.0.0.1, nor any other host; `host`: the machine's network.
 * In the sandbox the state root is hidden but for the instance's own workdir (goondan.db, the API token and the
 * other instances' files are out of sight).
 */
import { stateRootOfWorkdir } from "../../shared/state-paths.ts";
import { configString } from "../../tools/tool-config.ts";
import type { PidNamespaceSandbox, SandboxNetwork } from "../../tools/pid-namespace-sandbox.ts";
import {
  isolationSetting as readIsolation,
  sandboxCommand,
  sharedSandbox,
  type IsolationSetting,
} from "../../tools/sandbox-pool.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import type { ToolContext } from "../../tools/types.ts";

export type { IsolationSetting };

/** The sandbox of commands with the default profile and no state root to hide (tests, `goondan doctor`). */
export const commandSandbox = sharedSandbox({});
let warned = false;

/** Forgets that the warning was given (tests). */
export function resetIsolationWarning(): void {
  warned = false;
}

export function isolationSetting(config: ToolContext["config"]): IsolationSetting {
  return readIsolation(configString(config, "isolation"));
}

export function networkSetting(config: ToolContext["config"]): SandboxNetwork {
  return configString(config, "network") === "host" ? "host" : "none";
}

/** The shared sandbox for this Tool's network setting and this instance's file view. */
function sandboxFor(ctx: ToolContext): PidNamespaceSandbox {
  const network = networkSetting(ctx.config);
  const stateRoot = stateRootOfWorkdir(ctx.workdir);
  if (network === "none" && stateRoot === undefined) return commandSandbox;
  return sharedSandbox({ network, ...(stateRoot === undefined ? {} : { hide: stateRoot, keep: ctx.workdir }) });
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
  const decision = await sandboxCommand({
    sandbox: options.sandbox ?? sandboxFor(ctx),
    setting: isolationSetting(ctx.config),
    command,
  });
  if (decision.kind === "refused") {
    throw new ToolFault(
      "E_BASH_ISOLATION_UNAVAILABLE",
      `this Tool requires commands to run in their own PID namespace, which this machine does not allow: ${decision.reason}`,
      {
        suggestion: "Tell the operator: run goondan doctor, or set the bash Tool's config.isolation to auto.",
      },
    );
  }
  if (decision.kind === "unisolated" && decision.reason !== undefined && !warned) {
    warned = true;
    ctx.logger.warn(
      { reason: decision.reason },
      "bash commands run WITHOUT their sandbox: a command can list every process and read the environment of any process of this user that is not protected, such as the node launcher of `npx goondan run` and npx itself, which hold the model API keys and GOONDAN_API_TOKEN, read the state root (goondan.db), and reach the daemon's API on 127.0.0.1; `goondan doctor` shows why",
    );
  }
  return decision.command;
}
