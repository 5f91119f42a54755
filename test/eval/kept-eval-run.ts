/**
 * What the tests of the kept eval runs share: `goondan eval --replay` on the repository's bundled example (two cases
 * with committed cassettes, no API key, no network) into a fresh state root, then `goondan run` of the same bundle on
 * that state root, whose API serves the run at /v1/evals. The state root is removed by the test's cleanups.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killChild, type Defer } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, runToExit, startGoondanRun } from "../helpers/goondan-process.ts";

export const REPO = join(import.meta.dir, "../..");

/** The environment without any provider key. */
export const offline = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/API_KEY|OPENAI|ANTHROPIC|GOOGLE|GOONDAN_STATE_ROOT/.test(name)),
) as Record<string, string>;

/** `goondan eval --replay` of the bundled example into a fresh state root: its exit and the state root. */
export async function replayExample(defer: Defer) {
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-kept-evals-"));
  defer(() => rmSync(stateRoot, { recursive: true, force: true }));
  const result = await runToExit({
    argv: [process.execPath, GOONDAN_BIN, "eval", REPO, "--replay", "--state-root", stateRoot],
    env: offline,
  });
  return { ...result, stateRoot };
}

/** `goondan run` of the bundled example on `stateRoot` (with `token` when given), stopped by the cleanups. */
export function runExample(defer: Defer, stateRoot: string, token?: string) {
  return startGoondanRun({
    args: [REPO, "--port", "0", "--state-root", stateRoot],
    env: { ...offline, GOONDAN_LOG_LEVEL: "info", ...(token ? { GOONDAN_API_TOKEN: token } : {}) },
    readyTimeoutMs: 60_000,
    onSpawn: (proc) => defer(killChild(proc)),
  });
}
