/** A CliIo that keeps what a command writes, for tests that call main() in-process. */
import type { CliIo } from "../../../src/cli/command.ts";

export type CapturedIo = CliIo & { out: () => string; err: () => string };

export function captureIo(options: { cwd?: string; env?: Record<string, string> } = {}): CapturedIo {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    env: options.env ?? {},
    cwd: options.cwd ?? "/",
    out: () => out.join(""),
    err: () => err.join(""),
  };
}
