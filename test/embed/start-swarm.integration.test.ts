/**
 * `startSwarm` as an application uses it, from a plain Node script and from a Bun script (real processes, the
 * loopback model): the package is built first (`npm run build`: compiled JavaScript and .d.ts in dist/, what Node
 * imports through the package's exports), then each script starts the swarm, asks it one question through the
 * returned client, and stops it. Under Bun the orchestrator runs in the script's own process (the agent's parent is
 * the script) from an in-memory bundle; under Node it runs as a `goondan run` child under Bun (the agent's parent is
 * not the script). After stop() no process of the swarm is left.
 */
import { beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { childEnv, writeSwarmBundle } from "../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { killProcessesWithCommandLine, pidsWithCommandLine } from "../helpers/goondan-process.ts";
import { startLoopbackLlm } from "../helpers/loopback-llm.ts";

const defer = useCleanups();
const ROOT = new URL("../../", import.meta.url).pathname;
const FIXTURES = new URL("../fixtures/embed/", import.meta.url).pathname;

beforeAll(async () => {
  const build = Bun.spawn(["npm", "run", "build"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const code = await build.exited;
  if (code !== 0) throw new Error(`npm run build failed: ${await new Response(build.stdout).text()}`);
}, 180_000);

async function swarmFixture() {
  const llm = await startLoopbackLlm({ respond: () => ({ text: "embedded reply" }) });
  const dir = writeSwarmBundle({ endpoint: llm.url });
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-embed-"));
  defer(async () => {
    killProcessesWithCommandLine(stateRoot);
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  });
  return { dir, stateRoot };
}

async function runScript(command: string[]): Promise<Record<string, unknown>> {
  const proc = Bun.spawn(command, {
    cwd: ROOT,
    env: { ...process.env, ...childEnv },
    stdout: "pipe",
    stderr: "pipe",
  });
  defer(() => proc.kill("SIGKILL"));
  const [code, out, err] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  const line = out.split("\n").find((text) => text.startsWith('{"mode"'));
  if (code !== 0 || line === undefined) throw new Error(`${command.join(" ")} exited ${code}: ${out}\n${err}`);
  return JSON.parse(line) as Record<string, unknown>;
}

function filesOf(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(dir, path)] = readFileSync(path, "utf8");
    }
  };
  walk(dir);
  return files;
}

describe("startSwarm", () => {
  it("runs from a plain Node script on the built package: a goondan run child under Bun, answered through the client, stopped", async () => {
    const { dir, stateRoot } = await swarmFixture();
    const result = await runScript(["node", join(FIXTURES, "start-swarm-node.mjs"), dir, stateRoot]);
    expect(result).toMatchObject({ mode: "child", response: "embedded reply", state: "ok", runtime: "node" });
    expect(result.parent).not.toBe(result.pid);
    expect(result.parent).toBeGreaterThan(0);
    expect(pidsWithCommandLine(stateRoot)).toEqual([]);
  }, 120_000);

  it("runs from a Bun script with an in-memory bundle: the orchestrator in the script's own process", async () => {
    const { dir, stateRoot } = await swarmFixture();
    const filesJson = join(stateRoot, "..", `${relative(tmpdir(), stateRoot)}-files.json`);
    writeFileSync(filesJson, JSON.stringify(filesOf(dir)));
    defer(() => rmSync(filesJson, { force: true }));
    const result = await runScript([process.execPath, join(FIXTURES, "start-swarm-bun.ts"), filesJson, stateRoot]);
    expect(result).toMatchObject({ mode: "in-process", response: "embedded reply", runtime: "bun" });
    expect(result.parent).toBe(result.pid);
    expect(pidsWithCommandLine(stateRoot)).toEqual([]);
  }, 120_000);
});
