/**
 * Built-in `bash`: `exec` runs a command line with /bin/sh, `script` runs a script file from the
 * workspace. Both run in the workspace (or a confined cwd), in their own process group killed after the
 * timeout (default `config.timeoutMs` 30 s) together with any descendant that escaped the group (see
 * run-marked-process.ts), with stdout/stderr capped (`config.maxOutputBytes`, 64 KiB
 * each) and a scrubbed environment. A non-zero exit is a normal result: the model reads exitCode.
 */
import { mkdir, stat } from "node:fs/promises";
import { configNumber } from "../../tools/tool-config.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import type { JsonObject } from "../../shared/json.ts";
import type { ToolContext, ToolHandler } from "../../tools/types.ts";
import { resolveConfinedPath } from "../../tools/workdir-path.ts";
import { runMarkedProcess, type MarkedOutcome } from "./run-marked-process.ts";

const MAX_TIMEOUT_MS = 600_000;

async function workingDirectory(ctx: ToolContext, cwd: unknown): Promise<string> {
  if (typeof cwd !== "string" || cwd === "" || cwd === ".") {
    await mkdir(ctx.workdir, { recursive: true });
    return ctx.workdir;
  }
  const target = await resolveConfinedPath({ root: ctx.workdir, path: cwd });
  const info = await stat(target.absolute).catch(() => undefined);
  if (info === undefined || !info.isDirectory()) {
    throw new ToolFault("E_BASH_CWD", `cwd ${JSON.stringify(cwd)} is not a directory in the workspace`, { suggestion: "Omit cwd to run in the workspace, or create the directory first." });
  }
  return target.absolute;
}

function limits(ctx: ToolContext, input: JsonObject): { timeoutMs: number; maxOutputBytes: number } {
  const timeoutMs = typeof input.timeoutMs === "number" ? input.timeoutMs : configNumber(ctx.config, "timeoutMs", 30_000);
  return {
    timeoutMs: Math.min(Math.max(100, timeoutMs), MAX_TIMEOUT_MS),
    maxOutputBytes: Math.max(1024, configNumber(ctx.config, "maxOutputBytes", 64 * 1024)),
  };
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
  if (outcome.stdoutTruncated) result.stdoutTruncated = `only the first ${Buffer.byteLength(outcome.stdout)} of ${outcome.stdoutBytes} bytes are shown`;
  if (outcome.stderrTruncated) result.stderrTruncated = `only the first ${Buffer.byteLength(outcome.stderr)} of ${outcome.stderrBytes} bytes are shown`;
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
    const outcome = await runMarkedProcess({
      argv: ["/bin/sh", "-c", String(input.command)],
      cwd,
      ...(typeof input.stdin === "string" ? { stdin: input.stdin } : {}),
      ...limits(ctx, input),
      signal: ctx.signal,
    });
    return present(outcome);
  },
  script: async (ctx, input) => {
    const script = await resolveConfinedPath({ root: ctx.workdir, path: String(input.path) });
    const info = await stat(script.absolute).catch(() => undefined);
    if (info === undefined || !info.isFile()) {
      throw new ToolFault("E_BASH_SCRIPT_NOT_FOUND", `no script file at ${script.relative}`, { suggestion: "Write the script with file-system__write first, or check the path with file-system__list." });
    }
    const args = Array.isArray(input.args) ? input.args.map(String) : [];
    const executable = (info.mode & 0o111) !== 0;
    const outcome = await runMarkedProcess({
      argv: executable ? [script.absolute, ...args] : ["/bin/sh", script.absolute, ...args],
      cwd: await workingDirectory(ctx, input.cwd),
      ...(typeof input.stdin === "string" ? { stdin: input.stdin } : {}),
      ...limits(ctx, input),
      signal: ctx.signal,
    });
    return present(outcome);
  },
};
