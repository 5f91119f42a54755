/**
 * `goondan run` with a cli Connection on a real terminal (a pty from util-linux `script`): a prompt,
 * the reply printed after a typed line, and Ctrl+C ending the whole run cleanly (exit 0), both when Bun
 * runs bin/goondan and through its Node launcher (as `npx goondan` does), where the same keypress reaches
 * the orchestrator twice: from the terminal and relayed by the launcher.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLoopbackLlm } from "../helpers/loopback-llm.ts";
import { liveEnv, liveModel, writeLiveBundle } from "../fixtures/reload/live-swarm.ts";
import { GOONDAN_BIN, killProcessesWithCommandLine } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const SCRIPT = "/usr/bin/script";
const defer = useCleanups();

const shellQuote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`;

describe.skipIf(!existsSync(SCRIPT))("goondan run with the cli connector on a TTY", () => {
  const node = Bun.which("node");
  const launchers: [string, string][] = [
    ["bun", process.execPath],
    ...(node === null ? [] : [["the node launcher", node] as [string, string]]),
  ];
  it.each(launchers)(
    "prompts, prints the reply to a typed line, and exits 0 on Ctrl+C (%s)",
    async (_name, runtime) => {
      const llm = await startLoopbackLlm({ respond: liveModel });
      const dir = writeLiveBundle({
        endpoint: llm.url,
        extraYaml:
          "---\napiVersion: goondan.ai/v1\nkind: Connection\nmetadata: { name: terminal }\nspec:\n  connectorRef: Connector/cli\n",
      });
      const stateRoot = mkdtempSync(join(tmpdir(), "goondan-tty-"));
      // `script` runs the command through $SHELL -c; `exec` keeps that shell out of the terminal's foreground
      // group whatever it is (dash would otherwise take the Ctrl+C too and end itself with 130 after goondan's 0).
      const command = `exec ${[runtime, GOONDAN_BIN, "run", dir, "--port", "0", "--state-root", join(stateRoot, "state")].map(shellQuote).join(" ")}`;
      const env = { ...process.env, ...liveEnv, TERM: "dumb", SHELL: "/bin/sh" };
      const proc = Bun.spawn([SCRIPT, "-qfec", command, "/dev/null"], {
        env,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      defer(async () => {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
        // A failed run must not leave the orchestrator behind the killed pty (its state root names it).
        killProcessesWithCommandLine(stateRoot);
        await llm.close();
        rmSync(dir, { recursive: true, force: true });
        rmSync(stateRoot, { recursive: true, force: true });
      });
      let screen = "";
      const reader = proc.stdout.getReader();
      const waitFor = async (needle: string) => {
        const deadline = Date.now() + 20_000;
        while (!screen.includes(needle)) {
          if (Date.now() > deadline)
            throw new Error(`never saw ${JSON.stringify(needle)}; screen: ${JSON.stringify(screen)}`);
          const { value, done } = await reader.read();
          if (done) throw new Error(`terminal closed; screen: ${JSON.stringify(screen)}`);
          screen += new TextDecoder().decode(value);
        }
      };
      await waitFor("> ");
      proc.stdin.write("hello from the keyboard\r");
      await proc.stdin.flush();
      await waitFor("front heard: hello from the keyboard");
      proc.stdin.write("\x03");
      await proc.stdin.flush();
      const code = await proc.exited;
      if (code !== 0) {
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
          screen += new TextDecoder().decode(chunk.value);
        throw new Error(`exit code ${code}; screen: ${JSON.stringify(screen)}`);
      }
      expect(code).toBe(0);
    },
    40_000,
  );
});
