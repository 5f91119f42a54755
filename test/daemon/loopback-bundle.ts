/**
 * A bundle on disk for real-process tests against the loopback LLM: a temp directory holding `bundle/goondan.yaml`
 * (a Model named `loopback` pointing at the LLM's URL, then the documents given) and `state/`, removed after the
 * test; and `goondan run` started on it with its API on a free port, killed after the test with every process whose
 * command line names its state root.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killChild, type Defer } from "../helpers/cleanups.ts";
import { killProcessesWithCommandLine, startGoondanRun, type GoondanProcess } from "../helpers/goondan-process.ts";

export function loopbackBundle(options: { defer: Defer; llmUrl: string; documents: string }): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-loopback-"));
  options.defer(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "bundle"));
  writeFileSync(
    join(dir, "bundle", "goondan.yaml"),
    `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: loopback }
spec: { provider: openai-compatible, model: loopback-model, endpoint: "${options.llmUrl}", apiKey: { value: k } }
---
${options.documents}`,
  );
  return dir;
}

/** `goondan run` on `dir`'s bundle and state root; resolves once it is ready (a loaded machine gets a minute). */
export function runLoopbackBundle(options: { defer: Defer; dir: string }) {
  const stateRoot = join(options.dir, "state");
  options.defer(() => killProcessesWithCommandLine(stateRoot));
  return startGoondanRun({
    args: [join(options.dir, "bundle"), "--port", "0", "--state-root", stateRoot],
    env: { GOONDAN_LOG_LEVEL: "info" },
    onSpawn: (proc: GoondanProcess) => options.defer(killChild(proc)),
    readyTimeoutMs: 60_000,
  });
}
