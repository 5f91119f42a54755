/**
 * The built-in cli connector as a real child: piped stdin lines become events routed to the entry
 * agent (a real agent child on the loopback LLM), and the replies come out on the connector's stdout,
 * one per line, in input order.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bunProcessSpawner,
  type ChildProcessHandle,
  type ProcessSpawner,
} from "../../src/supervision/process-spawner.ts";
import { Daemon } from "../../src/daemon/daemon.ts";
import { selectSwarm } from "../../src/config/resolve.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { CONNECTOR_ENTRY_SCRIPT } from "../../src/protocol/child-entry.ts";
import { isChildMessage, type ChildMessage } from "../../src/protocol/ipc-messages.ts";
import { validateBundleOnDisk } from "../../src/config/validate-on-disk.ts";
import { startLoopbackLlm } from "../helpers/loopback-llm.ts";
import { liveEnv, liveModel, writeLiveBundle } from "../fixtures/reload/live-swarm.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();

/** Runs connector children with stdin read from `stdinFile` and stdout captured (the cli connector's terminal). */
function terminalSpawner(options: {
  stdinFile: string;
  env: Record<string, string | undefined>;
  output: string[];
}): ProcessSpawner {
  return {
    spawn(request) {
      const messageListeners: ((message: ChildMessage) => void)[] = [];
      const exitListeners: ((exit: { code: number | null; signal: string | null }) => void)[] = [];
      const child = Bun.spawn([process.execPath, CONNECTOR_ENTRY_SCRIPT, ...request.argv], {
        env: options.env,
        stdin: Bun.file(options.stdinFile),
        stdout: "pipe",
        stderr: "ignore",
        serialization: "json",
        ipc(message) {
          if (isChildMessage(message)) for (const listener of messageListeners) listener(message);
        },
        onExit(_subprocess, code, signal) {
          for (const listener of exitListeners) listener({ code, signal: signal === null ? null : String(signal) });
        },
      });
      void (async () => {
        for await (const chunk of child.stdout) options.output.push(new TextDecoder().decode(chunk));
      })();
      const handle: ChildProcessHandle = {
        pid: child.pid,
        send: (message) => {
          try {
            child.send(message);
            return true;
          } catch {
            return false;
          }
        },
        onMessage: (listener) => void messageListeners.push(listener),
        onExit: (listener) => void exitListeners.push(listener),
        kill: (signal = "SIGTERM") => child.kill(signal),
      };
      return handle;
    },
  };
}

describe("the cli connector", () => {
  it("answers piped lines one by one, in order, through the entry agent", async () => {
    const llm = await startLoopbackLlm({ respond: liveModel });
    const dir = writeLiveBundle({
      endpoint: llm.url,
      extraYaml:
        "---\napiVersion: goondan.ai/v1\nkind: Connection\nmetadata: { name: terminal }\nspec:\n  connectorRef: Connector/cli\n",
    });
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-cli-"));
    const stdinFile = join(stateRoot, "stdin.txt");
    writeFileSync(stdinFile, "first line\n\nsecond line\ngreet me\n");
    const env = { ...process.env, ...liveEnv } as Record<string, string | undefined>;
    const loaded = await validateBundleOnDisk({ target: dir, env, checkModules: false });
    if (!loaded.bundle) throw new Error(`fixture invalid: ${JSON.stringify(loaded.errors)}`);
    const output: string[] = [];
    const daemon = await Daemon.start({
      bundle: loaded.bundle,
      swarm: selectSwarm(loaded.bundle).metadata.name,
      stateRoot,
      env,
      logger: silentLogger(),
      spawner: bunProcessSpawner({ output: "ignore", env }),
      connectorSpawner: terminalSpawner({ stdinFile, env, output }),
      reloadSignal: false,
    });
    defer(async () => {
      await daemon.stop("test over");
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });
    const deadline = Date.now() + 20_000;
    while (output.join("").split("\n").filter(Boolean).length < 3 && Date.now() < deadline) await Bun.sleep(25);
    expect(output.join("")).toBe(
      'front heard: first line\nfront heard: second line\ntool said {"status":"ok","output":"greeting from v1"}\n',
    );
  }, 30_000);
});
