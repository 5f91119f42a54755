/**
 * `goondan run --watch`, `goondan restart` and SIGHUP as real processes (bin/goondan) with real agent
 * children on the loopback LLM: a tool edit restarts only its agent and the next call runs the new code,
 * a broken YAML leaves the old swarm serving, restart refuses an invalid bundle with exit 3 and restarts
 * one agent with a fresh conversation once it is fixed.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLoopbackLlm } from "../helpers/loopback-llm.ts";
import { liveEnv, liveModel, writeLiveBundle } from "../fixtures/reload/live-swarm.ts";
import { GOONDAN_BIN, startGoondanRun, until as waitUntil } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { storedInstanceState } from "../helpers/stored-state.ts";

const BIN = GOONDAN_BIN;
const defer = useCleanups();

async function startDaemon(args: string[], env: Record<string, string>) {
  const { proc, lines, base, port } = await startGoondanRun({
    args,
    env,
    readyTimeoutMs: 20_000,
    onSpawn: (spawned) =>
      defer(() => {
        if (spawned.exitCode === null && spawned.signalCode === null) spawned.kill("SIGKILL");
      }),
  });
  return { proc, logs: lines, base, port };
}

const until = <T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000) =>
  waitUntil(probe, { timeoutMs, intervalMs: 50 });

async function goondan(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, BIN, ...args], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

describe("goondan run --watch", () => {
  it("restarts only the edited tool's agent, keeps serving through a broken YAML, and obeys goondan restart and SIGHUP", async () => {
    const llm = await startLoopbackLlm({ respond: liveModel });
    const dir = writeLiveBundle({ endpoint: llm.url });
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-run-watch-"));
    defer(async () => {
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });
    const env = { ...liveEnv, GOONDAN_LOG_LEVEL: "info" };
    const daemon = await startDaemon([dir, "--watch", "--port", "0", "--state-root", stateRoot], env);
    const ask = async (agent: string, input: string) => {
      const response = await fetch(`${daemon.base}/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ agent, input, wait: true }),
      });
      return (await response.json()) as { status: string; response: string };
    };
    const pidOf = async (agent: string) => {
      const body = (await (await fetch(`${daemon.base}/v1/processes`)).json()) as {
        processes: { agent: string; pid: number | null }[];
      };
      return body.processes.find((row) => row.agent === agent)?.pid ?? null;
    };

    expect((await ask("front", "greet please")).response).toContain("greeting from v1");
    expect((await ask("other", "remember me")).status).toBe("ok");
    const frontPid = await pidOf("front");
    const otherPid = await pidOf("other");

    writeFileSync(join(dir, "tools/version.ts"), 'export const VERSION = "v2";\n');
    await until(async () => {
      const pid = await pidOf("front");
      return pid !== null && pid !== frontPid;
    });
    expect(await pidOf("other")).toBe(otherPid);
    expect((await ask("front", "greet again")).response).toContain("greeting from v2");
    const frontPid2 = await pidOf("front");

    const yaml = join(dir, "goondan.yaml");
    const good = readFileSync(yaml, "utf8");
    writeFileSync(yaml, good.replace("tools: [Tool/greet,", "tools: [Tool/missing,"));
    await until(() =>
      daemon.logs.some((line) => line.msg === "invalid bundle change ignored; the running swarm is unchanged"),
    );
    expect((await ask("front", "greet while broken")).response).toContain("greeting from v2");
    expect(await pidOf("front")).toBe(frontPid2);

    const refused = await goondan(["restart", "--port", String(daemon.port)], env);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("E_CONFIG_REF_NOT_FOUND");

    writeFileSync(yaml, good);
    const restarted = await goondan(["restart", "--agent", "other", "--fresh", "--port", String(daemon.port)], env);
    expect(restarted.code).toBe(0);
    await until(async () => {
      const pid = await pidOf("other");
      return pid !== null && pid !== otherPid;
    });
    expect((await ask("other", "who am i")).status).toBe("ok");
    const conversation = (await storedInstanceState({ stateRoot, swarm: "live", agent: "other", instanceKey: "live" }))
      .messages;
    expect(JSON.stringify(conversation)).toContain("who am i");
    expect(JSON.stringify(conversation)).not.toContain("remember me");

    daemon.proc.kill("SIGHUP");
    await until(() =>
      daemon.logs.some((line) => line.msg === "restarting" && JSON.stringify(line.reasons).includes("SIGHUP")),
    );

    daemon.proc.kill("SIGTERM");
    expect(await daemon.proc.exited).toBe(0);
  }, 60_000);
});
