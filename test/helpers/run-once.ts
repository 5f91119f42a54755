/**
 * Runs `goondan run <bundle> --input TEXT` as a real process (bin/goondan under Bun) with a fresh state root and
 * resolves with its stdout, stderr and exit code. The test's own provider variables (ANTHROPIC_*, OPENAI_*,
 * GOOGLE_GENERATIVE_AI_*) are left out, so only the ones the test gives count.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GOONDAN_BIN } from "./goondan-process.ts";

const PROVIDER_VARIABLE = /^(ANTHROPIC|OPENAI|GOOGLE_GENERATIVE_AI)_/;

export async function runOnce(options: {
  dir: string;
  env: Record<string, string>;
  cwd?: string;
  input?: string;
  args?: string[];
}): Promise<{ stdout: string; stderr: string; code: number }> {
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-run-once-"));
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !PROVIDER_VARIABLE.test(name)));
  const proc = Bun.spawn(
    [
      process.execPath,
      GOONDAN_BIN,
      "run",
      options.dir,
      "--state-root",
      stateRoot,
      "--input",
      options.input ?? "hi",
      ...(options.args ?? []),
    ],
    {
      env: { ...inherited, GOONDAN_LOG_LEVEL: "warn", ...options.env },
      cwd: options.cwd ?? options.dir,
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    },
  );
  const killer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { stdout, stderr, code };
  } finally {
    clearTimeout(killer);
    rmSync(stateRoot, { recursive: true, force: true });
  }
}
