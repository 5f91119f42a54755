/**
 * `goondan run` with a cli Connection as a real process: piped stdin lines are answered on stdout, one
 * reply per line in order, while the logs go to stderr; SIGTERM still shuts down cleanly.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLoopbackLlm } from "../helpers/loopback-llm.ts";
import { liveEnv, liveModel, writeLiveBundle } from "../fixtures/reload/live-swarm.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const BIN = new URL("../../bin/goondan", import.meta.url).pathname;
const defer = useCleanups();

describe("goondan run with the cli connector", () => {
  it("answers piped lines in order on stdout", async () => {
    const llm = await startLoopbackLlm({ respond: liveModel });
    const dir = writeLiveBundle({
      endpoint: llm.url,
      extraYaml:
        "---\napiVersion: goondan.ai/v1\nkind: Connection\nmetadata: { name: terminal }\nspec:\n  connectorRef: Connector/cli\n",
    });
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-run-cli-"));
    const input = join(stateRoot, "input.txt");
    await Bun.write(input, "hello there\ngreet me\nbye now\n");
    const proc = Bun.spawn(
      [process.execPath, BIN, "run", dir, "--port", "0", "--state-root", join(stateRoot, "state")],
      {
        env: { ...process.env, ...liveEnv },
        stdin: Bun.file(input),
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    defer(async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });
    let stdout = "";
    const reader = proc.stdout.getReader();
    const deadline = Date.now() + 20_000;
    while (stdout.split("\n").filter(Boolean).length < 3 && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      stdout += new TextDecoder().decode(value);
    }
    expect(stdout).toBe(
      'front heard: hello there\ntool said {"status":"ok","output":"greeting from v1"}\nfront heard: bye now\n',
    );
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  }, 30_000);
});
