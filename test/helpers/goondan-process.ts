/**
 * Real-process helpers for tests that run `bin/goondan`: start `goondan run` and wait for its `ready` log
 * line (collecting every JSON log line), poll until a condition holds, tell whether a pid is alive, and find
 * processes by their command line (from /proc, so tests need no procps on the machine), and run any command to its
 * exit with its whole output.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseProcStat } from "../../src/shared/proc-stat.ts";
import { seedAgentEntry } from "./agent-entry-seed.ts";

export const GOONDAN_BIN = new URL("../../bin/goondan", import.meta.url).pathname;

export type GoondanProcess = Bun.Subprocess<"ignore", "pipe", "pipe" | "ignore">;

/** Polls `probe` until it returns a truthy value (returned), or throws after `timeoutMs`. */
export async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await Bun.sleep(options.intervalMs ?? 25);
  }
}

/**
 * Whether the process still runs: not when it is gone, nor when it has exited and waits to be reaped (a zombie, which
 * `kill(pid, 0)` still finds): on a loaded machine its parent may reap it seconds after it died.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"))?.state !== "Z";
  } catch {
    return false; // gone between the two looks
  }
}

/** Pids of live processes whose command line contains `needle` (e.g. a test's unique state root). */
export function pidsWithCommandLine(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").includes(needle))
        pids.push(Number(entry));
    } catch {
      // the process exited while we looked
    }
  }
  return pids;
}

/** SIGKILLs every process whose command line contains `needle`: cleanup after a failed real-process test. */
export function killProcessesWithCommandLine(needle: string): void {
  for (const pid of pidsWithCommandLine(needle)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * The API's credentials for a test's `goondan run`: as the test's env says (a token, a tokens file, or
 * GOONDAN_API_AUTH itself), else `GOONDAN_API_AUTH=off`. Most real-process tests are about what the API does, not who
 * may call it, and call it without a token as goondan allowed before credentials were required; the tests of
 * credentials (test/http/auth-*.test.ts) start it with auth on.
 */
function authEnv(env: Record<string, string> | undefined, args: readonly string[]): Record<string, string> {
  const configured =
    args.includes("--tokens-file") ||
    ["GOONDAN_API_TOKEN", "GOONDAN_API_TOKENS_FILE", "GOONDAN_API_AUTH"].some((name) => env?.[name]);
  return configured ? {} : { GOONDAN_API_AUTH: "off" };
}

/**
 * Spawns `goondan run <args>` (behind `prefix`, e.g. `["setsid"]`; `bin` picks another checkout's launcher) and resolves once it logs `ready`, with
 * its bound port. `onSpawn` runs before the wait so the caller can register cleanup even if start-up fails.
 */
export async function startGoondanRun(options: {
  args: string[];
  /** Another checkout's `bin/goondan` (a bench comparing commits); this tree's by default. */
  bin?: string;
  env?: Record<string, string>;
  prefix?: string[];
  stderr?: "pipe" | "ignore";
  readyTimeoutMs?: number;
  onSpawn?: (proc: GoondanProcess) => void;
}): Promise<{ proc: GoondanProcess; lines: Record<string, unknown>[]; port: number; base: string }> {
  const stateRoot = options.args[options.args.indexOf("--state-root") + 1];
  if (options.bin === undefined && options.args.includes("--state-root") && stateRoot !== undefined)
    await seedAgentEntry(stateRoot, { create: options.prefix === undefined });
  const proc = Bun.spawn(
    [...(options.prefix ?? []), process.execPath, options.bin ?? GOONDAN_BIN, "run", ...options.args],
    {
      env: { ...process.env, ...authEnv(options.env, options.args), ...options.env },
      stdout: "pipe",
      stderr: options.stderr ?? "pipe",
      stdin: "ignore",
    },
  ) as GoondanProcess;
  options.onSpawn?.(proc);
  const lines: Record<string, unknown>[] = [];
  let exited = false;
  void (async () => {
    const reader = proc.stdout.getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        exited = true;
        return;
      }
      buffer += new TextDecoder().decode(value);
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        try {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // a non-JSON line from a child; ignore
        }
      }
    }
  })();
  const ready = await until(
    () => {
      const line = lines.find((record) => record.msg === "ready");
      if (line === undefined && exited) throw new Error(`goondan run exited before ready: ${JSON.stringify(lines)}`);
      return line;
    },
    { timeoutMs: options.readyTimeoutMs ?? 15_000 },
  ).catch((error: Error) => {
    throw new Error(`${error.message}; no ready line; got ${JSON.stringify(lines)}`);
  });
  const port = ready.port as number;
  return { proc, lines, port, base: `http://127.0.0.1:${port}` };
}

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its exit: its exit code and its whole stdout and stderr. */
export async function runToExit(options: {
  argv: string[];
  cwd?: string;
  env: Record<string, string | undefined>;
}): Promise<ProcessResult> {
  const child = Bun.spawn(options.argv, {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: options.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}
