/**
 * Built-in `bash`: `exec` runs a command line with /bin/sh (or `shell`), `script` runs a script file from
 * the workspace. Both run in the workspace (or a confined cwd), in the agent's PID namespace sandbox where
 * the machine allows it (command-isolation.ts: other processes, and the secrets in their environments, out
 * of sight), in their own process group killed after the timeout (default `config.timeoutMs` 30 s) together
 * with any descendant that escaped the group (see run-marked-process.ts), with stdout/stderr capped
 * (`config.maxOutputBytes`, 64 KiB each) and a scrubbed environment to which `env` only adds the values the
 * call spells out. A non-zero exit is a normal result: the model reads exitCode.
 */
import { mkdir, stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { configNumber } from "../../tools/tool-config.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import type { JsonObject } from "../../shared/json.ts";
import type { ToolContext, ToolHandler } from "../../tools/types.ts";
import { resolveConfinedPath } from "../../tools/workdir-path.ts";
import { isolateCommand } from "./command-isolation.ts";
import { runMarkedProcess, type MarkedOutcome } from "./run-marked-process.ts";
import { scrubbedEnv } from "./scrubbed-env.ts";

const MAX_TIMEOUT_MS = 600_000;

async function workingDirectory(ctx: ToolContext, cwd: unknown): Promise<string> {
  if (typeof cwd !== "string" || cwd === "" || cwd === ".") {
    await mkdir(ctx.workdir, { recursive: true });
    return ctx.workdir;
  }
  const target = await resolveConfinedPath({ root: ctx.workdir, path: cwd });
  const info = await stat(target.absolute).catch(() => undefined);
  if (info === undefined || !info.isDirectory()) {
    throw new ToolFault("E_BASH_CWD", `cwd ${JSON.stringify(cwd)} is not a directory in the workspace`, {
      suggestion: "Omit cwd to run in the workspace, or create the directory first.",
    });
  }
  return target.absolute;
}

function limits(ctx: ToolContext, input: JsonObject): { timeoutMs: number; maxOutputBytes: number } {
  // 0 is upstream's "no timeout": here, the longest one allowed.
  const timeoutMs =
    typeof input.timeoutMs === "number"
      ? input.timeoutMs || MAX_TIMEOUT_MS
      : configNumber(ctx.config, "timeoutMs", 30_000);
  return {
    timeoutMs: Math.min(Math.max(100, timeoutMs), MAX_TIMEOUT_MS),
    maxOutputBytes: Math.max(1024, configNumber(ctx.config, "maxOutputBytes", 64 * 1024)),
  };
}

/**
 * The command's environment: the scrubbed basics of this process (never its secrets), then the call's own
 * `env` entries, which can only add values the model wrote out (numbers and booleans as text).
 */
function commandEnv(input: JsonObject): Record<string, string> {
  const env = scrubbedEnv(process.env);
  const extra = input.env;
  if (typeof extra === "object" && extra !== null && !Array.isArray(extra)) {
    for (const [name, value] of Object.entries(extra)) {
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
        env[name] = String(value);
    }
  }
  return env;
}

/** The `shell` a call asks for: an absolute path to an executable file, or a name found on the command's PATH. */
async function chosenShell(input: JsonObject, env: Record<string, string>): Promise<string | undefined> {
  if (typeof input.shell !== "string" || input.shell === "") return undefined;
  const shell = input.shell;
  const path = isAbsolute(shell) ? shell : shell.includes("/") ? null : Bun.which(shell, { PATH: env.PATH ?? "" });
  const info = path === null ? undefined : await stat(path).catch(() => undefined);
  if (path === null || info === undefined || !info.isFile() || (info.mode & 0o111) === 0) {
    throw new ToolFault(
      "E_BASH_SHELL_NOT_FOUND",
      `shell ${JSON.stringify(shell)} is not an executable file${isAbsolute(shell) ? "" : " on PATH"}`,
      { suggestion: "Omit shell to use /bin/sh, or give an absolute path such as /bin/bash." },
    );
  }
  return path;
}

async function run(options: {
  ctx: ToolContext;
  input: JsonObject;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}): Promise<JsonObject> {
  const { ctx, input } = options;
  const outcome = await runMarkedProcess({
    argv: options.argv,
    cwd: options.cwd,
    env: options.env,
    ...(typeof input.stdin === "string" ? { stdin: input.stdin } : {}),
    ...limits(ctx, input),
    signal: ctx.signal,
    wrap: (command) => isolateCommand({ ctx, command }),
  });
  return present(outcome);
}

function present(outcome: MarkedOutcome): JsonObject {
  const result: JsonObject = {
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    stdout: outcome.stdout,
    stderr: outcome.stderr,
    timedOut: outcome.timedOut,
    durationMs: outcome.durationMs,
  };
  if (outcome.stdoutTruncated)
    result.stdoutTruncated = `only the first ${Buffer.byteLength(outcome.stdout)} of ${outcome.stdoutBytes} bytes are shown`;
  if (outcome.stderrTruncated)
    result.stderrTruncated = `only the first ${Buffer.byteLength(outcome.stderr)} of ${outcome.stderrBytes} bytes are shown`;
  if (outcome.outputLimitExceeded) result.note = "the command produced too much output and was stopped";
  if (outcome.timedOut) result.note = "the command ran past its timeout and its process group was killed";
  if (outcome.cancelled) result.note = "the command was cancelled";
  if (outcome.escapedKilled > 0) {
    result.escapedKilled = outcome.escapedKilled;
    const escaped = `${outcome.escapedKilled} background process(es) that had left the process group were killed too`;
    result.note = typeof result.note === "string" ? `${result.note}; ${escaped}` : escaped;
  }
  return result;
}

export const handlers: Record<string, ToolHandler> = {
  exec: async (ctx, input) => {
    const cwd = await workingDirectory(ctx, input.cwd);
    const env = commandEnv(input);
    const shell = (await chosenShell(input, env)) ?? "/bin/sh";
    return run({ ctx, input, argv: [shell, "-c", String(input.command)], cwd, env });
  },
  script: async (ctx, input) => {
    const script = await resolveConfinedPath({ root: ctx.workdir, path: String(input.path) });
    const info = await stat(script.absolute).catch(() => undefined);
    if (info === undefined || !info.isFile()) {
      throw new ToolFault("E_BASH_SCRIPT_NOT_FOUND", `no script file at ${script.relative}`, {
        suggestion: "Write the script with file-system__write first, or check the path with file-system__list.",
      });
    }
    const args = Array.isArray(input.args) ? input.args.map(String) : [];
    const env = commandEnv(input);
    const shell = await chosenShell(input, env);
    const executable = (info.mode & 0o111) !== 0;
    const argv =
      shell !== undefined
        ? [shell, script.absolute, ...args]
        : executable
          ? [script.absolute, ...args]
          : ["/bin/sh", script.absolute, ...args];
    return run({ ctx, input, argv, cwd: await workingDirectory(ctx, input.cwd), env });
  },
};
