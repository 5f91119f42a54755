import { describe, expect, it } from "bun:test";
import { existsSync } from "node:fs";
import { startLoopbackLlm } from "../helpers/loopback-llm.ts";
import { spawnAgentChild, writeFixtureBundle } from "./support/child-harness.ts";
import { tempStateRoot } from "./support/test-env.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

async function gone(pid: number, withinMs: number): Promise<boolean> {
  for (let waited = 0; waited < withinMs; waited += 25) {
    if (!existsSync(`/proc/${pid}`)) return true;
    const status = await Bun.file(`/proc/${pid}/status`)
      .text()
      .catch(() => "");
    if (/State:\s+Z/.test(status)) return true;
    await Bun.sleep(25);
  }
  return false;
}

describe("agent child without its parent", () => {
  it("exits when the IPC channel is closed", async () => {
    const server = await startLoopbackLlm({});
    try {
      const child = spawnAgentChild({
        bundle: writeFixtureBundle({ endpoint: server.url }),
        stateRoot: tempStateRoot(),
      });
      await child.waitFor("ready");
      child.disconnect();
      expect(await child.exited).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("does not outlive a parent killed with SIGKILL", async () => {
    const server = await startLoopbackLlm({});
    const parent = Bun.spawn(
      [
        process.execPath,
        new URL("../fixtures/agent/parent-of-child.ts", import.meta.url).pathname,
        writeFixtureBundle({ endpoint: server.url }),
        tempStateRoot(),
      ],
      { stdout: "pipe", env: { ...process.env, LOOPBACK_API_KEY: "k" } },
    );
    try {
      const reader = parent.stdout.getReader();
      const { value } = await reader.read();
      const childPid = Number(new TextDecoder().decode(value).trim());
      expect(childPid).toBeGreaterThan(0);
      parent.kill(9);
      await parent.exited;
      expect(await gone(childPid, 3_000)).toBe(true);
    } finally {
      parent.kill(9);
      await server.close();
    }
  });
});
